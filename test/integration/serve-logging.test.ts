// mgw serve's log (JSON lines on stderr): per-request lines are debug lines, off at the default
// level because each costs a write on the request path; --log-level turns them on; a 5xx and the
// gateway's warnings are logged whatever the level; a level that does not exist is a usage error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_RECORD } from '../helpers/model-records.js';
import { mgw, mgwAsync, serve } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  url?: string;
  res?: { statusCode: number };
}

/** Serves `dataDir` with `args`, sends one 200, one 401 and one 5xx, and answers the log lines. */
async function logOf(dataDir: string, args: string[]): Promise<Line[]> {
  const logFile = join(dataDir, `serve-${args.join('-') || 'default'}.log`);
  const previous = process.env.MGW_TEST_SERVE_LOG;
  process.env.MGW_TEST_SERVE_LOG = logFile;
  const served = await serve(['--data-dir', dataDir, ...args], { MGW_LOG_LEVEL: '' });
  try {
    const token = (JSON.parse(mgw(['keys', 'create', '--access', 'balance', '--balance-usd', '5', '--json', '--data-dir', dataDir]).stdout) as { token: string }).token;
    expect((await postJson(`${served.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a lighthouse', size: '256x256' }, token)).status).toBe(200);
    expect((await postJson(`${served.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x' }, `${token}x`)).status).toBe(401);
    // A provider nobody listens for: the upstream is unreachable, a 5xx.
    expect((await postJson(`${served.baseUrl}/images/generations`, { model: 'on-closed', prompt: 'x', size: '1024x1024' }, token)).status).toBeGreaterThanOrEqual(500);
  } finally {
    expect(await served.stop()).toBe(0);
    if (previous === undefined) delete process.env.MGW_TEST_SERVE_LOG;
    else process.env.MGW_TEST_SERVE_LOG = previous;
  }
  const lines = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Line);
  // The test helpers fetch the OpenAPI document to check answers against it: not this test's requests.
  const helpers = new Set(lines.filter((l) => l.url === '/v1/openapi.json').map((l) => l.reqId));
  return lines.filter((l) => !helpers.has(l.reqId));
}

describe('mgw serve --log-level', () => {
  const dataDir = tempDir('mgw-serve-log-');
  expect(mgw(['providers', 'add', '--kind', 'openai', '--id', 'closed', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'sk-x', '--data-dir', dataDir]).status).toBe(0);
  expect(mgw(['models', 'put', 'on-closed', '--provider', 'closed', '--upstream-model', 'gpt-image-1', '--json', JSON.stringify(IMAGE_RECORD), '--data-dir', dataDir]).status).toBe(0);

  it('logs no per-request line by default, but every 5xx and the start and stop', async () => {
    const lines = await logOf(dataDir, []);
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed.map((l) => l.res?.statusCode)).toEqual([expect.any(Number)]);
    expect(completed[0]!.res!.statusCode).toBeGreaterThanOrEqual(500);
    expect(completed[0]!.level).toBe(40); // warn
    expect(lines.some((l) => l.msg === 'incoming request')).toBe(false);
    expect(lines.some((l) => l.msg === 'shutting down')).toBe(true);
  }, 60_000);

  it('--log-level debug logs every request', async () => {
    const lines = await logOf(dataDir, ['--log-level', 'debug']);
    const statuses = lines.filter((l) => l.msg === 'request completed').map((l) => l.res!.statusCode);
    expect(statuses.slice(0, 2)).toEqual([200, 401]);
    expect(statuses).toHaveLength(3);
    expect(lines.filter((l) => l.msg === 'incoming request')).toHaveLength(3);
  }, 60_000);

  it('a level that does not exist is a usage error', async () => {
    const refused = await mgwAsync(['serve', '--port', '0', '--log-level', 'loud', '--data-dir', dataDir]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trimEnd().split('\n')[0]).toBe('mgw: --log-level must be one of silent, fatal, error, warn, info, debug, trace (got "loud")');
  });
});
