// Starts an emulator in another process (child.ts) and drives it over IPC. Node 20 cannot run
// TypeScript, so from the sources (vitest) child.ts and the emulator files it imports (node
// built-ins only) are bundled once into one ESM file with rolldown (a devDependency; ~50 ms),
// cached in the OS temp dir under a hash of the sources; from the compiled tree (dist/) the
// sibling child.js is forked as is.
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildCommand, ChildMessage, ChildSettings, ChildStart, EmulatorKind, RemoteRequest } from './child.js';
import type { Fault, FaultRoute } from './types.js';
import type { OpenAIEmulatorOptions } from './openai-emulator.js';
import type { FalEmulatorOptions } from './fal-emulator.js';

export type { ChildSettings, EmulatorKind, RemoteRequest } from './child.js';

/** An emulator running in another process. Every control call is a round trip: await it. */
export interface RemoteEmulator {
  kind: EmulatorKind;
  baseUrl: string;
  origin: string;
  apiKey: string;
  routes: readonly string[];
  pid: number;
  inject(route: FaultRoute, fault: Fault): Promise<void>;
  clearFaults(): Promise<void>;
  settings(settings: ChildSettings): Promise<void>;
  /** Every request it received so far, in arrival order (bodies as UTF-8 text). */
  requests(): Promise<RemoteRequest[]>;
  close(): Promise<void>;
}

type Command = ChildCommand extends infer C ? (C extends ChildCommand ? Omit<C, 'id'> : never) : never;

const here = dirname(fileURLToPath(import.meta.url));
let entry: Promise<string> | undefined;

/** The file to fork: the compiled child.js next to this file, or a bundle of the sources. */
function childEntry(): Promise<string> {
  entry ??= (async () => {
    const compiled = join(here, 'child.js');
    if (fileURLToPath(import.meta.url).endsWith('.js') && existsSync(compiled)) return compiled;
    const sources = readdirSync(here).filter((name) => name.endsWith('.ts')).sort();
    const hash = createHash('sha256');
    for (const name of sources) hash.update(name).update(readFileSync(join(here, name)));
    const out = join(tmpdir(), `mgw-emulator-child-${hash.digest('hex').slice(0, 16)}.mjs`);
    if (existsSync(out)) return out;
    const { build } = await import('rolldown');
    const result = await build({ input: join(here, 'child.ts'), platform: 'node', write: false, logLevel: 'warn', output: { format: 'esm' } });
    const code = result.output[0].code;
    // Written aside and renamed: test files bundling at the same time never read half a file.
    const partial = `${out}.${process.pid}.part`;
    writeFileSync(partial, code);
    renameSync(partial, out);
    return out;
  })();
  entry.catch(() => (entry = undefined));
  return entry;
}

export async function startEmulatorProcess(kind: 'openai', options?: OpenAIEmulatorOptions): Promise<RemoteEmulator>;
export async function startEmulatorProcess(kind: 'fal', options?: FalEmulatorOptions): Promise<RemoteEmulator>;
export async function startEmulatorProcess(kind: EmulatorKind, options: OpenAIEmulatorOptions | FalEmulatorOptions = {}): Promise<RemoteEmulator> {
  const file = await childEntry();
  const start: ChildStart = { kind, options };
  const child: ChildProcess = fork(file, [JSON.stringify(start)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let exited = false;

  const ready = await new Promise<Extract<ChildMessage, { ready: unknown }>['ready']>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${kind} emulator process did not start in 10 s`)), 10_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the ${kind} emulator process exited with ${code} before it was ready`)));
    child.on('message', (message: ChildMessage) => {
      if ('ready' in message) {
        clearTimeout(timer);
        resolve(message.ready);
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(message.error));
    });
  });
  child.removeAllListeners('exit');
  child.once('exit', () => {
    exited = true;
    for (const waiter of pending.values()) waiter.reject(new Error(`the ${kind} emulator process exited`));
    pending.clear();
  });

  const call = (command: Command): Promise<unknown> => {
    if (exited) return Promise.reject(new Error(`the ${kind} emulator process has exited`));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ ...command, id } as ChildCommand);
    });
  };

  return {
    kind,
    ...ready,
    pid: child.pid!,
    inject: async (route, fault) => void (await call({ op: 'inject', route, fault })),
    clearFaults: async () => void (await call({ op: 'clearFaults' })),
    settings: async (settings) => void (await call({ op: 'settings', settings })),
    requests: async () => (await call({ op: 'requests' })) as RemoteRequest[],
    close: async () => {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await call({ op: 'close' }).catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
