// OpenAI refuses to DELETE a running video; the gateway then reads it. A video that ended between
// the refused DELETE and that read is deleted at once, not taken as nothing left to cancel.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../electron/core/logger.js';
import { OpenAIProvider } from '../../electron/core/providers/openai/openai-provider.js';
import type { VideoJob } from '../../electron/core/providers/provider.js';
import { UpstreamClient } from '../../electron/core/providers/upstream/upstream-client.js';

let server: Server | null = null;
let http: UpstreamClient | null = null;
afterEach(async () => {
  await http?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = null;
});

/** An upstream answering each call in turn from `answers` (status, body), recording what came. */
async function upstream(answers: [number, unknown][]): Promise<{ provider: OpenAIProvider; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const [status, body] = answers.shift() ?? [500, { error: { message: 'unexpected' } }];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  http = new UpstreamClient(silentLogger, () => []);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { provider: new OpenAIProvider({ id: 'up', baseUrl, apiKey: () => 'sk-test' }, http), seen };
}

const job = {} as VideoJob;
const refused: [number, unknown] = [400, { error: { message: 'Video is not finished' } }];

it('a video that ended just after the refused DELETE is deleted then', async () => {
  const { provider, seen } = await upstream([refused, [200, { id: 'v1', status: 'completed' }], [200, { id: 'v1', deleted: true }]]);
  await provider.cancelVideo(job, 'v1');
  expect(seen).toEqual(['DELETE /v1/videos/v1', 'GET /v1/videos/v1', 'DELETE /v1/videos/v1']);
});

it('a video still running keeps the cancel pending (a passing refusal)', async () => {
  const { provider } = await upstream([refused, [200, { id: 'v1', status: 'in_progress' }]]);
  await expect(provider.cancelVideo(job, 'v1')).rejects.toMatchObject({ code: 'upstream_unavailable' });
});

it('a second refusal once it has ended is final: nothing left to delete', async () => {
  const { provider, seen } = await upstream([refused, [200, { id: 'v1', status: 'failed' }], refused]);
  await expect(provider.cancelVideo(job, 'v1')).rejects.toMatchObject({ code: 'upstream_bad_request' });
  expect(seen).toHaveLength(3);
});
