// mgw: the owner's command line. A thin door over the same core as HTTP and the studio.
import { resolve } from 'node:path';
import { balanceCommand } from './cli/balance-command.js';
import { keysCommand } from './cli/keys-command.js';
import { modelsCommand } from './cli/models-command.js';
import { providersCommand } from './cli/providers-command.js';
import { serveCommand } from './cli/serve-command.js';
import { UsageError } from './cli/args.js';
import { fileInDataDirPath, loadSettings, resolveDataDir } from './core/config.js';
import { isGatewayError } from './core/errors.js';
import { storageError } from './core/store/storage-errors.js';
import { parseDatabaseUrl } from './core/store/database-url.js';
import { createGateway, type Gateway } from './core/gateway.js';

const HELP = `mgw: the Media Gateway Studio command line

  mgw serve [--host 127.0.0.1] [--port 8787] [--log-level info] [--data-dir DIR] [--database URL] [--files-dir DIR]
  mgw keys create --access free|pro|balance [--balance-usd N] [--allowance-usd N] [--label TEXT] [--json]
  mgw keys list [--json]
  mgw keys revoke <key-id>
  mgw keys update <key-id> [--access free|pro|balance] [--allowance-usd N]
  mgw keys usage <key-id> [--json]
  mgw balance top-up <key-id> <usd>
  mgw balance show <key-id> [--json]
  mgw models list [--json]
  mgw models put <id> [--provider ID] [--upstream-model NAME] | [--route PROVIDER[:UPSTREAM_MODEL] ...] [--workflow FILE.json|builtin | --template FILE.json|builtin] --json '<model record fields>'
  mgw models remove <id>
  mgw models discover <provider-id>
  mgw providers add --kind openai|fal|replicate|gemini|runway|comfyui|a1111|sdcpp --id ID [--base-url URL] [--api-key KEY | --api-key-env VAR] [--timeout SECONDS]
  mgw providers update --id ID [--base-url URL] [--api-key KEY | --api-key-env VAR] [--timeout SECONDS|default]
  mgw providers list [--json]
  mgw providers remove <id>
  mgw providers test <id>

Every command takes --data-dir DIR (default: $MGW_DATA_DIR, else the platform's app-data folder)
and --database postgres://USER:PASS@HOST:5432/DB (default: $MGW_DATABASE_URL; unset: SQLite in the
data dir). With a database, several instances share it: see docs/team.md.
`;

/** A command may answer an exit status of its own (a failed check is not a usage error); default 0. */
type Command = (gateway: Gateway, sub: string, argv: string[]) => Promise<number | void>;
const GROUPS: Record<string, Command> = { keys: keysCommand, balance: balanceCommand, models: modelsCommand, providers: providersCommand };

/** --data-dir and --database may appear anywhere; they are taken out before the command parses the rest. */
function takeGlobalOptions(argv: string[]): { dataDir: string | undefined; database: string | undefined; rest: string[] } {
  const rest: string[] = [];
  const found: Record<'data-dir' | 'database', string | undefined> = { 'data-dir': undefined, database: undefined };
  const needs = { 'data-dir': 'a directory', database: 'a URL (postgres://USER:PASS@HOST:5432/DB)' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const name = (['data-dir', 'database'] as const).find((option) => arg === `--${option}` || arg.startsWith(`--${option}=`));
    if (!name) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    // An empty value (`--data-dir "$UNSET"`) would otherwise fall back to the default.
    if (value === undefined || value === '' || (!arg.includes('=') && value.startsWith('--'))) throw new UsageError(`--${name} needs ${needs[name]}`);
    found[name] = value;
  }
  return { dataDir: found['data-dir'], database: found.database, rest };
}

/** --database, else MGW_DATABASE_URL (empty is unset), else none (SQLite); a malformed URL is a usage error. */
function databaseUrlOf(flag: string | undefined): string | null {
  const url = flag ?? (process.env.MGW_DATABASE_URL || null);
  if (url === null) return null;
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    const message = (error as Error).message.replace(/^--database/, flag === undefined ? 'MGW_DATABASE_URL' : '--database');
    throw new UsageError(message.replace(/\.$/, ''));
  }
  return url;
}

/** --data-dir, else MGW_DATA_DIR, else the default; a path to a file is the caller's mistake (exit 2). */
function dataDirOf(flag: string | undefined): string {
  const dir = resolveDataDir(flag);
  const file = fileInDataDirPath(dir);
  if (file === resolve(dir)) throw new UsageError(`the data dir ${dir} is a file, not a directory`);
  if (file) throw new UsageError(`the data dir ${dir} cannot be created: ${file} is a file, not a directory`);
  return dir;
}

const isHelpFlag = (arg: string): boolean => arg === '--help' || arg === '-h';

/**
 * The lines of HELP for `mgw <command> [<sub>] --help`; none when the command or its subcommand
 * is unknown. An option in the subcommand's place (`mgw serve --port 1 --help`) shows the group.
 */
function commandHelp(command: string, sub: string | undefined): string {
  const lines = HELP.split('\n').filter((line) => line.startsWith(`  mgw ${command} `) || line === `  mgw ${command}`);
  const name = commandName(command, sub);
  const shown = name === command ? lines : lines.filter((line) => line.startsWith(`  mgw ${name} `) || line === `  mgw ${name}`);
  return shown.length > 0 ? `${shown.map((line) => line.trimStart()).join('\n')}\n` : '';
}

/** "keys create", or "keys" when what follows the command is an option or nothing. */
const commandName = (command: string, sub: string | undefined): string => (sub && !sub.startsWith('-') ? `${command} ${sub}` : command);

export async function main(argv: string[]): Promise<number> {
  try {
    const { dataDir, database, rest } = takeGlobalOptions(argv);
    const [command, sub, ...tail] = rest;
    if ((command === 'help' || (command !== undefined && isHelpFlag(command))) && sub !== undefined) {
      // `mgw help keys [create]`: that group's (or subcommand's) lines, as `mgw keys [create] --help`.
      const help = commandHelp(sub, tail[0]);
      if (!help) throw new UsageError(`unknown command "${commandName(sub, tail[0])}" (try: mgw help)`);
      process.stdout.write(help);
      return 0;
    }
    if (!command || command === 'help' || isHelpFlag(command)) {
      // Asked for: the help is the output. No command at all: a usage error, on stderr.
      (command ? process.stdout : process.stderr).write(HELP);
      return command ? 0 : 2;
    }
    if (rest.some(isHelpFlag)) {
      const help = commandHelp(command, sub);
      if (!help) throw new UsageError(`unknown command "${commandName(command, sub)}" (try: mgw help)`);
      process.stdout.write(help);
      return 0;
    }
    const databaseUrl = databaseUrlOf(database);
    if (command === 'serve') {
      await serveCommand(rest.slice(1), dataDirOf(dataDir), databaseUrl);
      return -1; // keeps running
    }
    const group = GROUPS[command];
    if (!group) throw new UsageError(`unknown command "${command}" (try: mgw help)`);
    if (!sub) throw new UsageError(`"mgw ${command}" needs a subcommand (try: mgw help)`);
    // The same limits as the server on this data dir (daily tokens, billing period), so usage
    // and balances read here agree with what it enforces.
    const dir = dataDirOf(dataDir);
    const gateway = await createGateway({ dataDir: dir, databaseUrl, limits: loadSettings(dir).limits });
    let status: number | void;
    try {
      status = await group(gateway, sub, tail);
    } finally {
      await gateway.close();
    }
    return status ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`mgw: ${error.message}\n`);
      return 2;
    }
    const storage = storageError(error);
    if (storage) {
      process.stderr.write(`mgw: ${storage.message}\n`);
      return 1;
    }
    if (isGatewayError(error)) {
      process.stderr.write(`mgw: ${error.message}\n`);
      return error.status === 404 || error.status === 400 ? 2 : 1;
    }
    process.stderr.write(`mgw: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}
