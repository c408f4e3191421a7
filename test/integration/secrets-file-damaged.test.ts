// A damaged secrets.json (hand-edited, or cut short by a full disk outside the gateway) is the
// data dir's storage failing: 503 storage_unavailable naming the file at every door, never a
// parse error that blames the caller's request.
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { mgw, serve, type Served } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { IMAGE_RECORD } from '../helpers/model-records.js';

let dataDir: string;
let server: Served;
let token: string;
let ownerToken: string;
/** An upstream that rate-limits every call, for a provider whose key comes from the environment. */
let limiting: Server;
const run = (...args: string[]) => mgw([...args, '--data-dir', dataDir]);

beforeAll(async () => {
  dataDir = tempDir('mgw-secrets-damaged-');
  expect(run('providers', 'add', '--kind', 'openai', '--id', 'up', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'sk-unused').status).toBe(0);
  expect(run('models', 'put', 'up-image', '--provider', 'up', '--json', JSON.stringify(IMAGE_RECORD)).status).toBe(0);
  limiting = createServer((_req, res) => res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' }).end('{"error":{"message":"slow down"}}'));
  await new Promise<void>((resolve) => limiting.listen(0, '127.0.0.1', resolve));
  const limitingUrl = `http://127.0.0.1:${(limiting.address() as AddressInfo).port}/v1`;
  expect(run('providers', 'add', '--kind', 'openai', '--id', 'envup', '--base-url', limitingUrl, '--api-key-env', 'MGW_DAMAGED_TEST_KEY').status).toBe(0);
  expect(run('models', 'put', 'envup-image', '--provider', 'envup', '--json', JSON.stringify(IMAGE_RECORD)).status).toBe(0);
  token = (JSON.parse(run('keys', 'create', '--access', 'balance', '--balance-usd', '5', '--json').stdout) as { token: string }).token;
  process.env.MGW_DAMAGED_TEST_KEY = 'sk-from-the-environment';
  server = await serve(['--data-dir', dataDir]);
  ownerToken = loadStudioToken(dataDir);
  writeFileSync(join(dataDir, 'secrets.json'), '{"provider:up": "sk-cut-sh');
});
afterAll(async () => {
  await server?.stop();
  limiting?.close();
  delete process.env.MGW_DAMAGED_TEST_KEY;
  rmSync(dataDir, { recursive: true, force: true });
});

const DAMAGED = /storage is unavailable: the provider keys file \(secrets\.json in the data directory\) is damaged/;

describe('a damaged secrets.json', () => {
  it('mgw providers commands say so in one line and exit 1', () => {
    for (const args of [['providers', 'list'], ['providers', 'update', '--id', 'up', '--api-key', 'sk-new']]) {
      const result = run(...args);
      expect(result.status, args.join(' ')).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(DAMAGED);
    }
  });

  it('the studio API answers 503 storage_unavailable, not 400 "The request body is not valid JSON"', async () => {
    const response = await request(`${server.baseUrl.replace(/\/v1$/, '')}/studio/api/providers.list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'storage_unavailable' });
    expect(errorOf(response).message).toMatch(DAMAGED);
  });

  it('a /v1 request to a model of that provider answers 503 storage_unavailable', async () => {
    const response = await postJson(`${server.baseUrl}/images/generations`, { model: 'up-image', prompt: 'a dog' }, token);
    expect(response.status).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'storage_unavailable', param: null });
  });

  it("does not touch a provider keyed by an environment variable: its upstream's errors map as always (429 with its Retry-After)", async () => {
    const response = await postJson(`${server.baseUrl}/images/generations`, { model: 'envup-image', prompt: 'a dog' }, token);
    expect(response.status).toBe(429);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_rate_limited' });
    expect(response.headers.get('retry-after')).toBe('7');
  });
});
