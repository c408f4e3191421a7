// One video task's slow step must not hold up the others: an OpenAI-kind video is downloaded
// when it completes (up to 10 minutes for a large file on a slow link), and meanwhile other
// tasks still have to be polled, completed and charged. The slow download is held by hand (a
// gate), not by a delay, so the check does not depend on how fast the machine is.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { Gate } from '../helpers/hand-video-provider.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { videoTaskKit } from '../helpers/video-task-kit.js';

let t: TestGateway;

// The scheduler runs in the background (as in `mgw serve`), scanning every 100 ms.
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const { setup, outputsOf } = videoTaskKit(() => t);

it('a task completes while another task of the scheduler is still downloading its video', async () => {
  const large = await setup();
  const download = new Gate();
  large.stub.upstream = 'completed';
  large.stub.downloadGate = download;
  const slow = await large.create();
  await download.reached;

  const small = await setup();
  small.stub.upstream = 'completed';
  const quick = await small.create();
  try {
    await waitFor(async () => (await small.get(quick.id)).status === 'completed', 10_000);
    // The first download is still held: before, every other task waited for it.
    expect(await large.get(slow.id)).toMatchObject({ status: 'queued' });
    expect(outputsOf(slow.id)).toEqual([`${slow.id}.mp4.part`]);
  } finally {
    download.open(); // also when a check failed: the gateway's close waits for the held step
  }
  await waitFor(async () => (await large.get(slow.id)).status === 'completed', 10_000);
  expect(await small.get(quick.id)).toMatchObject({ status: 'completed', cost_usd: '0.40000000' });
}, 30_000);
