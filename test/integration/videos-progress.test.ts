// A task's progress never goes back within one status: a provider that lost count (a local
// engine whose event stream is heard again only after a gateway restart) must not move the bar
// backwards; a task queued again starts from its new status.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { addStubVideoModel, StubVideoProvider } from '../helpers/stub-video-provider.js';

let t: TestGateway;
let taskId: string;

beforeAll(async () => {
  t = await startTestGateway({ background: false });
  await addStubVideoModel(t.gateway, new StubVideoProvider('stub', 'stuck'), 'stub-video');
  const key = await t.key('balance', { balanceNano: 10 * USD });
  const video = await t.client(key.token).videos.create({ model: 'stub-video' as never, prompt: 'a slow pan', seconds: '4' as never, size: '1280x720' as never });
  taskId = video.id;
});
afterAll(() => t.close());

const row = async () => {
  const task = await t.gateway.store.db.selectFrom('video_tasks').select(['status', 'progress']).where('id', '=', taskId).executeTakeFirstOrThrow();
  return `${task.status} ${task.progress}`;
};

it('moves forward, ignores a lower count in the same status, and starts again in a new one', async () => {
  expect(await t.gateway.videoTasks.progress(taskId, 'in_progress', 60)).toBe(true);
  expect(await row()).toBe('in_progress 60');
  expect(await t.gateway.videoTasks.progress(taskId, 'in_progress', 10)).toBe(false);
  expect(await row()).toBe('in_progress 60');
  expect(await t.gateway.videoTasks.progress(taskId, 'in_progress', 75)).toBe(true);
  expect(await row()).toBe('in_progress 75');
  expect(await t.gateway.videoTasks.progress(taskId, 'queued', 0)).toBe(true);
  expect(await row()).toBe('queued 0');
});
