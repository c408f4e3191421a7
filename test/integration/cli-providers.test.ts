// mgw providers, as real child processes against a loopback OpenAI-compatible emulator: the exit
// status scripts rely on, and the inputs `providers add` refuses with one line and status 2.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { mgwAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';

let dataDir: string;
let openai: OpenAIEmulator;

beforeAll(async () => {
  dataDir = tempDir('mgw-cli-providers-');
  openai = await startOpenAIEmulator();
});
afterAll(async () => {
  await openai?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// Async: the emulator lives in this process and must answer while mgw runs.
const run = (...args: string[]) => mgwAsync([...args, '--data-dir', dataDir]);

describe('mgw providers test', () => {
  it('exits 0 when the upstream accepts the key', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'good', '--base-url', openai.baseUrl, '--api-key', openai.apiKey)).status).toBe(0);
    const result = await run('providers', 'test', 'good');
    expect(result.stdout).toMatch(/^ok: Connected/);
    expect(result.status).toBe(0);
  });

  it('exits 1 when the upstream refuses the key', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'wrongkey', '--base-url', openai.baseUrl, '--api-key', 'sk-WRONG-0000')).status).toBe(0);
    const result = await run('providers', 'test', 'wrongkey');
    expect(result.stdout).toMatch(/^failed: /);
    expect(result.status).toBe(1);
  });

  it('exits 1 when the upstream cannot be reached', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'down', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'x-key')).status).toBe(0);
    const result = await run('providers', 'test', 'down');
    expect(result.stdout).toMatch(/^failed: /);
    expect(result.status).toBe(1);
  });
});
