// Shutdown of the HTTP door: a request in flight when close() is called still gets its answer,
// and its keep-alive connection does not hold the shutdown for the 72 s keep-alive timeout.
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let t: TestGateway | null = null;
afterEach(async () => {
  await t?.gateway.close().catch(() => undefined);
  if (t) rmSync(t.dataDir, { recursive: true, force: true });
  t = null;
});

it('close() waits for a request in flight, answers it, then ends its keep-alive connection at once', async () => {
  t = await startTestGateway({ background: false });
  const { token, accountId } = await t.key('balance', { balanceNano: 1_000_000_000 });
  const agent = new Agent({ keepAlive: true });
  const body = JSON.stringify({ model: 'local-image', prompt: 'a lighthouse at dusk', size: '1024x1024' });
  const answered = new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = request(
      `${t!.baseUrl}/images/generations`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  // The request is read and rendering (its hold is taken) when the server is told to stop.
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length > 0, 10_000, 1);
  const started = Date.now();
  await t.server.close();
  const closedIn = Date.now() - started;

  const response = await answered;
  expect(response.status).toBe(200);
  expect(response.bytes).toBeGreaterThan(1000);
  // Without the idle sweep this waits for the keep-alive timeout (72 s) and the test times out.
  expect(closedIn).toBeLessThan(10_000);
  agent.destroy();
});
