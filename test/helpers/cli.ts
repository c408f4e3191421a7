// Runs the real mgw binary (bin/mgw.js over the compiled dist/) as a child process.
import { registerGateway } from './conformance.js';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MGW = fileURLToPath(new URL('../../bin/mgw.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/electron/cli.js', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

function assertBuilt(): void {
  if (!existsSync(BUILT)) throw new Error('dist/ is missing: npm test builds it first (tsc -p tsconfig.json)');
}

export function mgw(args: string[], env: Record<string, string> = {}): CliResult {
  assertBuilt();
  const result = spawnSync(process.execPath, [MGW, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * mgw() without blocking this process: for tests whose loopback upstreams live in the test
 * process, and for several mgw processes running at once.
 */
export function mgwAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  assertBuilt();
  const child = spawn(process.execPath, [MGW, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

export interface Served {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `mgw serve --port 0` and resolves once it prints its listening line. */
export function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  assertBuilt();
  const child = spawn(process.execPath, [MGW, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`mgw serve did not start: ${out}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => { if (process.env.MGW_TEST_SERVE_LOG) appendFileSync(process.env.MGW_TEST_SERVE_LOG, chunk); });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
      if (match) {
        clearTimeout(timer);
        registerGateway(match[1]!);
        resolve({
          child,
          baseUrl: match[1]!,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              // Gone already (exited, or killed by a signal: then exitCode stays null): 'exit' will not come again.
              if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill(signal);
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`mgw serve exited with ${code}: ${out}`)));
  });
}
