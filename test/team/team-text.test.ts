// Text PostgreSQL cannot store: a NUL character, which SQLite keeps. A prompt or a model name
// carrying one is answered as on SQLite (never a 500), stored with U+FFFD in its place, and the
// activity log that records it still writes (a batch it could never write would hold every later
// row back).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { sharedPostgres } from '../helpers/postgres.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ databaseUrl: await (await sharedPostgres()).createDatabase('text') });
});

afterAll(async () => t?.close());

it('a NUL in a video prompt or a model name: answered as usual, stored as U+FFFD, the activity log keeps writing', async () => {
  const key = await t.key('balance', { balanceNano: 10 * USD });
  const created = await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'before\u0000after', seconds: 2, size: '480p' }, key.token);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const task = await t.gateway.videoTasks.get((created.body as VideoTask).id);
  expect(task?.prompt).toBe('before\ufffdafter');
  const unknown = await postJson(`${t.baseUrl}/images/generations`, { model: 'no\u0000such', prompt: 'x' }, key.token);
  expect(unknown.status).toBe(400);
  const after = await postJson(`${t.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x', size: '256x256' }, key.token);
  expect(after.status).toBe(200);
  const recent = await t.gateway.activity.recent(10);
  expect(recent.map((entry) => [entry.endpoint, entry.status])).toEqual(expect.arrayContaining([['/v1/images/generations', 400], ['/v1/images/generations', 200], ['/v1/videos', 200]]));
});
