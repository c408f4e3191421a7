// Starts `node bin/mgw.js serve --port 0` with a fresh data dir and waits for the two lines it
// prints: the /v1 base URL and the studio URL with the owner token.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STATE_ENV, type ServerState } from './server-state';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LISTENING = /^mgw: listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\b/m;
const STUDIO = /^mgw: studio (http:\/\/127\.0\.0\.1:\d+\/studio\/#token=\S+)$/m;
const START_TIMEOUT_MS = 30_000;

export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mgw-e2e-'));
  const logFile = join(dataDir, 'server.log');
  // stderr carries JSON logs: write them to a file so a full pipe can never block the server.
  const child = spawn(process.execPath, [join(ROOT, 'bin/mgw.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', openSync(logFile, 'a')],
    env: { ...process.env, MGW_LOG_LEVEL: process.env.MGW_LOG_LEVEL ?? 'info' },
  });
  const stdout = child.stdout;
  if (!stdout) throw new Error('mgw serve: no stdout pipe');

  const { apiBaseUrl, studioUrl } = await new Promise<{ apiBaseUrl: string; studioUrl: string }>((resolve, reject) => {
    let out = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      let log = '';
      try {
        log = readFileSync(logFile, 'utf8').slice(-4000);
      } catch {
        // no log yet
      }
      reject(new Error(`mgw serve ${why}\nstdout:\n${out}\nstderr (tail):\n${log}`));
    };
    const timer = setTimeout(() => fail(`printed no studio URL within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
    child.once('error', (error) => fail(`could not start: ${error.message}`));
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      out += chunk;
      const api = LISTENING.exec(out);
      const studio = STUDIO.exec(out);
      if (api?.[1] && studio?.[1]) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolve({ apiBaseUrl: api[1], studioUrl: studio[1] });
      }
    });
  });
  stdout.resume(); // keep draining stdout
  child.unref();

  const state: ServerState = { pid: child.pid ?? -1, dataDir, apiBaseUrl, studioUrl, logFile };
  const stateFile = join(dataDir, 'e2e-server.json');
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
  process.env[STATE_ENV] = stateFile;
}
