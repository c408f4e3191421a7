// Every upstream fault the emulators can produce, mapped to the gateway's own errors: never the
// upstream body (a secret planted in it must not reach the client), the hold always released,
// Retry-After kept, and the raw body only in the log, redacted.
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import type { Fault } from '../emulators/index.js';
import { USD } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { decodeB64 } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { INVALID_ANSWERS_LIMIT } from '../../electron/core/videos/repeated-answers.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';
import { startRemoteUpstreams, type RemoteUpstreamSetup } from '../helpers/remote-upstreams.js';
import { falImageFaultCases, openaiImageFaultCases, secretBody as sharedSecretBody } from '../helpers/upstream-fault-cases.js';

const SECRET = 'sk-upstream-SECRET-4f9a';
let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams({ totalTimeoutMs: 1_500 });
  key = await u.t.key('balance', { balanceNano: 50 * USD });
});
afterEach(() => {
  u.openai.clearFaults();
  u.fal.clearFaults();
});
afterAll(() => u.close());

const secretBody = (status: number) => sharedSecretBody(SECRET, status);
// The timeout runs against an emulator in another process (below): a deadline is only measured
// honestly when the upstream's event loop is not the gateway's.
const isTimeout = ([name]: readonly [string, ...unknown[]]) => name === 'timeout';
const imageCases = openaiImageFaultCases(SECRET).filter((c) => !isTimeout(c));
const imageTimeouts = openaiImageFaultCases(SECRET).filter(isTimeout);

describe('openai image faults', () => {
  it.each(imageCases.map(([name, fault, status, code]) => [name, status, code, fault] as const))('%s -> %i %s, no upstream body, nothing charged', async (_name, status, code, fault) => {
    u.openai.inject('POST /v1/images/generations', fault);
    const before = await u.t.gateway.billing.view(key.accountId);
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(status);
    const error = errorOf(response);
    expect(error).toMatchObject({ code, type: code, param: null });
    expect(response.text).not.toContain(SECRET);
    expect(response.text).not.toContain('upstream says no');
    if (status === 429) expect(response.headers.get('retry-after')).toBe('7');
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
  });

  it.each([
    ['fractional Retry-After', { 'retry-after': '1.5' }, '2'],
    ['retry-after-ms only', { 'retry-after-ms': '2500' }, '3'],
    ['both: Retry-After wins', { 'retry-after': '4', 'retry-after-ms': '900' }, '4'],
    [
      "OpenAI's rate-limit headers only: its exhausted limit's reset",
      { 'x-ratelimit-remaining-requests': '60', 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' },
      '360',
    ],
    ['no wait named at all: 1 s (every 429 says when to retry)', {}, '1'],
  ])('429 with %s -> the wait in whole seconds, rounded up', async (_name, headers, expected) => {
    u.openai.inject('POST /v1/images/generations', { status: 429, headers });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(429);
    expect(errorOf(response).code).toBe('upstream_rate_limited');
    expect(response.headers.get('retry-after')).toBe(expected);
  });
});

describe('upstream timeouts, against emulators in another process', () => {
  let r: RemoteUpstreamSetup;
  let remoteKey: { id: string; token: string; accountId: string };
  beforeAll(async () => {
    r = await startRemoteUpstreams({ totalTimeoutMs: 1_500 });
    remoteKey = await r.t.key('balance', { balanceNano: 50 * USD });
  });
  afterEach(async () => {
    await r.openai.clearFaults();
    await r.fal.clearFaults();
  });
  afterAll(() => r?.close());

  it.each(imageTimeouts.map(([name, fault, status, code]) => [name, status, code, fault] as const))('openai image %s -> %i %s within the gateway deadline, nothing charged', async (_name, status, code, fault) => {
    expect(imageTimeouts).toHaveLength(1);
    await r.openai.inject('POST /v1/images/generations', fault);
    const before = await r.t.gateway.billing.view(remoteKey.accountId);
    const started = Date.now();
    const response = await postJson(`${r.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, remoteKey.token);
    const tookMs = Date.now() - started;
    expect(response.status).toBe(status);
    expect(errorOf(response)).toMatchObject({ code, type: code, param: null });
    // The gateway's 1.5 s deadline ended it, well before the upstream's 3 s answer.
    expect(tookMs).toBeGreaterThanOrEqual(1_400);
    expect(tookMs).toBeLessThan(2_900);
    expect(await r.t.gateway.billing.view(remoteKey.accountId)).toEqual(before);
    expect((await r.openai.requests()).filter((q) => q.route === 'POST /v1/images/generations')).toHaveLength(1);
  });

  it('a fal submit that never answers in time -> 503 upstream_unavailable within the deadline, nothing charged', async () => {
    await r.fal.inject('POST submit', { latencyMs: 3_000 });
    const before = await r.t.gateway.billing.view(remoteKey.accountId);
    const started = Date.now();
    const response = await postJson(`${r.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, remoteKey.token);
    expect(response.status).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_unavailable', param: null });
    expect(Date.now() - started).toBeLessThan(2_900);
    expect(await r.t.gateway.billing.view(remoteKey.accountId)).toEqual(before);
  });

  it('an openai video creation that never answers in time -> 503 upstream_unavailable, no task, hold released', async () => {
    await r.openai.inject('POST /v1/videos', { latencyMs: 3_000 });
    const before = await r.t.gateway.billing.view(remoteKey.accountId);
    const started = Date.now();
    const response = await postJson(`${r.t.baseUrl}/videos`, { model: 'up-video', prompt: 'slow', seconds: 4, size: '1280x720' }, remoteKey.token);
    expect(response.status).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_unavailable', param: null });
    expect(Date.now() - started).toBeLessThan(2_900);
    expect(await r.t.gateway.billing.activeHolds(remoteKey.accountId)).toEqual([]);
    expect(await r.t.gateway.billing.view(remoteKey.accountId)).toEqual(before);
  });
});

const falCases = falImageFaultCases(SECRET);

describe('fal faults', () => {
  it.each(falCases.map(([name, route, fault, status, code]) => [name, status, code, route, fault] as const))('%s -> %i %s', async (_name, status, code, route, fault) => {
    u.fal.inject(route, fault);
    const before = await u.t.gateway.billing.view(key.accountId);
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, key.token);
    expect(response.status).toBe(status);
    expect(errorOf(response)).toMatchObject({ code, type: code, param: null });
    expect(response.text).not.toContain(SECRET);
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
  });

  it.each([
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '1' }, times: 2 }],
    ['503', { status: 503, times: 2 }],
    ['a reset', { reset: true, times: 2 }],
  ])('an image job whose status poll gets %s keeps polling and completes', async (_name, fault) => {
    u.fal.inject('GET status', fault as Fault);
    const cancels = () => u.fal.requests.filter((r) => r.route === 'PUT cancel').length;
    const cancelsBefore = cancels();
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, key.token);
    expect(response.status).toBe(200);
    expect(cancels()).toBe(cancelsBefore);
  });

  it.each([
    ['503', { status: 503, body: '{"detail":"Service Unavailable"}', times: 2 }],
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '1' }, times: 1 }],
    ['a reset', { reset: true, times: 2 }],
  ])('a finished image job whose result read gets %s is read again: the image is not lost', async (_name, fault) => {
    u.fal.inject('GET result', fault as Fault);
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, key.token);
    expect(response.status).toBe(200);
    expect(await decodeB64((response.body as { data: { b64_json: string }[] }).data[0]!.b64_json)).toMatchObject({ format: 'png' });
  });

  it.each([
    ['a model error (422 content_policy_violation)', true, 400, 'upstream_bad_request'],
    ['a request error (504 request_timeout)', { status: 504, body: { detail: `Request timed out ${SECRET}`, error_type: 'request_timeout' }, errorType: 'request_timeout' }, 503, 'upstream_unavailable'],
    ['a request error (503 runner_scheduling_failure)', { status: 503, body: { detail: `No runner ${SECRET}`, error_type: 'runner_scheduling_failure' }, errorType: 'runner_scheduling_failure' }, 503, 'upstream_unavailable'],
  ] as const)('an image job that fal ends with %s (status COMPLETED with an error): the status of its result URL decides the answer, nothing charged', async (_name, fail, status, code) => {
    u.fal.behaviour.fail = fail;
    const before = await u.t.gateway.billing.view(key.accountId);
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, key.token).finally(() => {
      u.fal.behaviour.fail = false;
    });
    expect(response.status).toBe(status);
    expect(errorOf(response).code).toBe(code);
    expect(response.text).not.toContain(SECRET);
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
  });

  it('a refused video creation releases the hold and leaves no task', async () => {
    u.fal.inject('POST submit', { status: 503, body: secretBody(503) });
    const before = await u.t.gateway.billing.view(key.accountId);
    const response = await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token);
    expect(response.status).toBe(503);
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
    const list = (await request(`${u.t.baseUrl}/videos`, { headers: { authorization: `Bearer ${key.token}` } })).body as { data: VideoTask[] };
    expect(list.data.every((v) => v.model !== 'fal-video' || v.status !== 'queued')).toBe(true);
  });
});

describe('video tasks and upstream faults', () => {
  const get = async (id: string) => (await request(`${u.t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
  const untilEnded = (id: string) =>
    waitFor(async () => {
      const task = await get(id);
      return task.status !== 'queued' && task.status !== 'in_progress' ? task : null;
    }, 20_000);
  const holdStatus = async (taskId: string) => {
    const row = (await u.t.gateway.videoTasks.get(taskId))!;
    return (await u.t.gateway.store.db.selectFrom('holds').select('status').where('id', '=', row.hold_id!).executeTakeFirstOrThrow()).status;
  };

  it('a 429 while polling is not a failure: the task still completes', async () => {
    u.openai.inject('GET /v1/videos/:id', { status: 429, headers: { 'retry-after': '1' }, times: 2 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    const done = await waitFor(async () => ((await get(created.id)).status === 'completed' ? get(created.id) : null), 20_000);
    expect(done.status).toBe('completed');
  });

  it('an upstream failure marks the task failed (gateway words) and releases the hold', async () => {
    u.openai.videoBehaviour.fail = { code: 'moderation_blocked', message: `blocked ${SECRET}` };
    const before = await u.t.gateway.billing.view(key.accountId);
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    const failed = await waitFor(async () => {
      const task = await get(created.id);
      return task.status === 'failed' ? task : null;
    }, 20_000);
    u.openai.videoBehaviour.fail = false;
    expect(failed.error).toMatchObject({ code: 'generation_failed' });
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
  });

  it('a fal model error at the result URL fails the task and releases the hold', async () => {
    u.fal.behaviour.fail = true;
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token)).body as VideoTask;
    const failed = await waitFor(async () => {
      const task = await get(created.id);
      return task.status === 'failed' ? task : null;
    }, 20_000);
    u.fal.behaviour.fail = false;
    expect(failed.status).toBe('failed');
    expect(await holdStatus(created.id)).toBe('released');
  });
  it('a run of unreadable status answers fails the task (not held until max_task_seconds), releases the hold and cancels upstream', async () => {
    u.openai.inject('GET /v1/videos/:id', { body: `not json ${SECRET}`, times: 50 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    const ended = await untilEnded(created.id);
    u.openai.clearFaults();
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'upstream_invalid_response' } });
    expect(JSON.stringify(ended)).not.toContain(SECRET);
    const row = (await u.t.gateway.videoTasks.get(created.id))!;
    const polls = u.openai.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${row.upstream_id}`);
    expect(polls).toHaveLength(INVALID_ANSWERS_LIMIT);
    // The cancel is sent once the task's end is committed, so a client may see the end first.
    await waitFor(async () => u.openai.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/videos/${row.upstream_id}`), 5_000);
    expect(await holdStatus(created.id)).toBe('released');
  });

  it('a finished video whose content is an error document (JSON, HTML) is not kept; the download is tried again and the task completes', async () => {
    u.openai.inject('GET /v1/videos/:id/content', { body: `{"error": "definitely not a video ${SECRET}"}`, times: 1 });
    u.openai.inject('GET /v1/videos/:id/content', { body: `<html>busy ${SECRET}</html>`, headers: { 'content-type': 'text/html' }, times: 1 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    const done = await waitFor(async () => {
      const task = await get(created.id);
      return task.status !== 'queued' && task.status !== 'in_progress' ? task : null;
    }, 30_000);
    expect(done.status).toBe('completed');
    const upstreamId = (await u.t.gateway.videoTasks.get(created.id))!.upstream_id!;
    expect(u.openai.requests.filter((r) => r.path === `/v1/videos/${upstreamId}/content`).length).toBeGreaterThanOrEqual(3);
    const content = await fetch(`${u.t.baseUrl}/videos/${created.id}/content`, { headers: { authorization: `Bearer ${key.token}` } });
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
    expect(bytes.includes(SECRET)).toBe(false);
    const leftovers = readdirSync(u.t.dataDir, { recursive: true }).map(String).filter((f) => f.endsWith('.part'));
    expect(leftovers).toEqual([]);
  });

  it("a finished video in another container than MP4 is kept as the upstream sent it (the owner paid for it)", async () => {
    const sent = `webm-ish bytes of a docs-faithful fake ${'v'.repeat(4_000)}`;
    u.openai.inject('GET /v1/videos/:id/content', { body: sent, headers: { 'content-type': 'video/webm' }, times: 1 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    const done = await untilEnded(created.id);
    expect(done.status).toBe('completed');
    const content = await fetch(`${u.t.baseUrl}/videos/${created.id}/content`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).toString()).toBe(sent);
  });

  it.each([
    ['in its body', { body: JSON.stringify({ detail: `Internal error ${SECRET}`, error_type: 'runner_server_error' }) }],
    ['in X-Fal-Error-Type', { body: '{"detail":"Request timed out"}', headers: { 'x-fal-error-type': 'request_timeout' } }],
  ])('a failed fal request (COMPLETED, its result URL a 5xx tagged with an error_type %s) fails the task at once', async (_where, fault) => {
    u.fal.inject('GET result', { status: 504, ...fault, times: 50 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token)).body as VideoTask;
    const ended = await untilEnded(created.id);
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
    expect(JSON.stringify(ended)).not.toContain(SECRET);
    expect(await holdStatus(created.id)).toBe('released');
  });

  it('a COMPLETED fal request whose result URL keeps answering an untagged 500 (the model\'s own answer) fails the task, not left to time out', async () => {
    u.fal.inject('GET result', { status: 500, body: JSON.stringify({ detail: `Internal Server Error ${SECRET}` }), times: 50 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token)).body as VideoTask;
    const ended = await untilEnded(created.id);
    const resultPath = new URL((JSON.parse((await u.t.gateway.videoTasks.get(created.id))!.upstream_id!) as { response_url: string }).response_url).pathname;
    const reads = u.fal.requests.filter((r) => r.route === 'GET result' && r.path === resultPath).length;
    u.fal.clearFaults();
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
    expect(JSON.stringify(ended)).not.toContain(SECRET);
    expect(reads).toBeGreaterThanOrEqual(5); // a passing hiccup is ridden out first
    expect(await holdStatus(created.id)).toBe('released');
  });

  it('a COMPLETED fal request whose result URL answers an untagged 503 once still completes', async () => {
    u.fal.inject('GET result', { status: 503, body: '{"detail":"Service Unavailable"}', times: 1 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token)).body as VideoTask;
    const ended = await untilEnded(created.id);
    expect(ended.status).toBe('completed');
  });

  it.each(['FAILED', 'CANCELED'])('a queue status of %s (beyond fal\'s documented three) fails the task and releases the hold', async (status) => {
    u.fal.inject('GET status', { body: JSON.stringify({ status }), times: 50 });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token)).body as VideoTask;
    const ended = await untilEnded(created.id);
    u.fal.clearFaults();
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
    expect(await holdStatus(created.id)).toBe('released');
  });
});

describe('logs', () => {
  it('keep the raw upstream body for the owner, with the provider key redacted', async () => {
    u.openai.inject('POST /v1/images/generations', { status: 500, body: `boom; echoed key ${u.openai.apiKey}` });
    await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    const line = u.logs.filter((l) => typeof l.fields.body === 'string' && (l.fields.body as string).includes('boom')).at(-1)!;
    expect(line.fields.body).toContain('[REDACTED]');
    expect(JSON.stringify(u.logs)).not.toContain(u.openai.apiKey);
  });

  it('never keep the head of a provider key that an upstream body echoes where the log cuts the body short', async () => {
    const providerKey = u.openai.apiKey;
    u.openai.inject('POST /v1/images/generations', { status: 500, body: `${'x'.repeat(1_995)}${providerKey} and more` });
    await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    const line = u.logs.filter((l) => typeof l.fields.body === 'string' && (l.fields.body as string).startsWith('xxxxx')).at(-1)!;
    expect(line.fields.body).toHaveLength(2_000);
    expect(line.fields.body).not.toContain(providerKey.slice(0, 5));
  });
});
