// One video task's slow step must not hold up the others: an OpenAI-kind video is downloaded
// when it completes (up to 10 minutes for a large file on a slow link), and meanwhile other
// tasks still have to be polled, completed and charged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { USD } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let key: { token: string };

beforeAll(async () => {
  u = await startUpstreams({ totalTimeoutMs: 20_000 });
  key = await u.t.key('balance', { balanceNano: 50 * USD });
});
afterAll(() => u.close());

const task = async (id: string) => (await request(`${u.t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;

it('a task completes while another task of the scheduler is still downloading its video', async () => {
  const download = 'GET /v1/videos/:id/content';
  u.openai.inject(download, { latencyMs: 6_000, times: 1 });
  const slow = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'a large video', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
  await waitFor(async () => u.openai.requests.some((r) => r.route === download), 5_000);

  const quick = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'a small one', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
  await waitFor(async () => (await task(quick.id)).status === 'completed', 5_000);
  // The first download is still being answered: before, every other task waited for it.
  expect((await task(slow.id)).status).toBe('in_progress');

  await waitFor(async () => (await task(slow.id)).status === 'completed', 15_000);
}, 30_000);
