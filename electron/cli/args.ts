// Argument parsing for mgw: node's strict parseArgs, with every mistake turned into a one-line
// UsageError (exit status 2) instead of a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseUsd } from '../core/billing/money.js';
import { USD_FORMAT_PROBLEM, usdAmountProblem } from '../../shared/usd-amount.js';
import { hasControlChar } from '../core/control-chars.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

export const DATA_DIR_OPTION: Options = { 'data-dir': { type: 'string' } };

/** Options that name something (a provider, a model); the others carry JSON, labels or keys, checked where they are used. */
const NAME_OPTIONS = ['id', 'provider', 'upstream-model', 'route'];

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** The options in the order given (an option given several times, such as --route, once each). */
  order: { name: string; value: string | undefined }[];
}

export function parse(argv: string[], options: Options, positionals: { min: number; max: number; usage: string }): Parsed {
  // parseArgs calls `--balance-usd -5` "ambiguous" and `top-up KEY -5` an unknown option. A
  // text value may start with '-' (`--label -3dB`): it goes after '=', as the message says.
  const at = argv.findIndex((arg) => /^-\d/.test(arg));
  if (at !== -1) {
    // After an option it may be a text value; a positional (`top-up KEY -5`) is an amount.
    const option = argv[at - 1]?.startsWith('--') && !argv[at - 1]!.includes('=') ? argv[at - 1] : null;
    const hint = option ? `; a text starting with '-' is given as ${option}=${argv[at]}` : '';
    throw new UsageError(`${argv[at]}: amounts and numbers take no sign${hint} (usage: ${positionals.usage})`);
  }
  let result;
  try {
    result = parseArgs({ args: argv, options: { ...DATA_DIR_OPTION, ...options }, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    // parseArgs messages are one line already; drop its suggestion about '--' to keep it short.
    const message = (error as Error).message.split('\n')[0]?.replace(/ To specify a positional argument starting with a '-'.*$/, '');
    throw new UsageError(`${message} (usage: ${positionals.usage})`);
  }
  // Ids and names are echoed in messages and rows, and no id has a control character. Quoted as
  // JSON, the refusal stays one line.
  const order = result.tokens.flatMap((token) => (token.kind === 'option' ? [{ name: token.name, value: token.value }] : []));
  for (const [what, value] of [
    ...result.positionals.map((p) => ['the argument', p] as const),
    ...order.filter((o) => NAME_OPTIONS.includes(o.name)).map((o) => [`--${o.name}`, o.value] as const),
  ]) {
    if (typeof value === 'string' && hasControlChar(value)) {
      throw new UsageError(`${what} ${JSON.stringify(value)} contains a line break or control character (usage: ${positionals.usage})`);
    }
  }
  const count = result.positionals.length;
  if (count < positionals.min || count > positionals.max) {
    throw new UsageError(`wrong number of arguments (usage: ${positionals.usage})`);
  }
  return { values: result.values as Parsed['values'], positionals: result.positionals, order };
}

export function stringOpt(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function usdArg(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const nano = parseUsd(text);
  if (nano === null) throw new UsageError(`${name} ${usdAmountProblem(text) ?? USD_FORMAT_PROBLEM}, got "${text}"`);
  return nano;
}

export function portArg(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be 0-65535, got "${text}"`);
  return Number(text);
}

/** A whole number of seconds, 1 or more (the timeouts a provider takes). */
export function secondsArg(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new UsageError(`${name} must be a whole number of seconds (1 or more), got "${text}"`);
  return Number(text);
}
