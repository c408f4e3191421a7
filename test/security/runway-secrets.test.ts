// The runway kind and secrets: a Runway answer that echoes the provider key (or carries any
// secret) reaches no client, image or video, and every log line has the key redacted; the key
// goes to Runway's API only, never to the host of its output URLs.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startRunwayEmulator, type RunwayEmulator } from '../emulators/runway-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { request } from '../helpers/http.js';
import { runwayImageFaultCases } from '../helpers/runway-fault-cases.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

vi.mock('../../electron/core/providers/runway/runway-mapping.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../electron/core/providers/runway/runway-mapping.js')>()),
  POLL_INTERVAL_MS: 50,
}));

const PLANTED = 'PLANTED-SECRET-77e2';
let t: TestGateway;
let rw: RunwayEmulator;
let token: string;
const logs: UpstreamSetup['logs'] = [];

beforeAll(async () => {
  rw = await startRunwayEmulator({ apiKey: 'key_LEAKME_runway_0123456789' });
  // The fault-case bursts are many requests a second on one key: its rate limit is raised.
  t = await startTestGateway({ logger: capturingLogger(logs), limits: { requests: { balance: { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 } } } });
  await t.gateway.providerConfigs.add({ id: 'rw', kind: 'runway', baseUrl: rw.baseUrl, apiKey: rw.apiKey });
  const image = (await t.gateway.catalog.find('local-image-pro'))!.record;
  const video = (await t.gateway.catalog.find('local-video'))!.record;
  await t.gateway.catalog.put({ record: { ...image, id: 'rw/img', owned_by: 'rw', capabilities: { image_generation: true, supported_sizes: ['1280x720'] } }, providerId: 'rw', upstreamModel: 'gen4_image' });
  await t.gateway.catalog.put({
    record: { ...video, id: 'rw/vid', owned_by: 'rw', pricing: { price: 0.05, currency: 'USD', unit: 'second' }, modalities: { input: ['text'], output: ['video'] }, capabilities: { video_generation: true, video_async: true, supported_seconds: [4], supported_sizes: ['1280x720'], max_task_seconds: 60, request_types: ['text-to-video'] } },
    providerId: 'rw',
    upstreamModel: 'veo3.1',
  });
  token = (await t.key('balance', { balanceNano: 20 * USD })).token;
});
afterAll(async () => {
  await t?.close();
  await rw?.close();
});

const generate = () => request(`${t.baseUrl}/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rw/img', prompt: 'x', size: '1280x720' }) });
const echo = (status: number) => JSON.stringify({ error: `Invalid API key: Bearer ${rw.apiKey} (${PLANTED})`, issues: [{ code: 'custom', path: ['promptText'], message: rw.apiKey }] }) + ` ${status}`;

describe('runway secrets', () => {
  it.each([400, 401, 403, 429, 500, 503])('an image refused with %i echoing the key: the client sees neither it nor the body; the log has it redacted', async (status) => {
    const before = logs.length;
    rw.inject('POST text_to_image', { status, body: echo(status), times: 1 });
    const answer = await generate();
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.text).not.toContain(rw.apiKey);
    expect(answer.text).not.toContain(PLANTED);
    const lines = logs.slice(before).filter((l) => l.fields.status === status);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(String(line.fields.body)).toContain('Bearer [REDACTED]');
    expect(JSON.stringify(logs)).not.toContain(rw.apiKey);
  });

  it.each(runwayImageFaultCases(PLANTED))('%s: nothing planted reaches the client', async (_name, where, route, fault) => {
    (where === 'api' ? rw.inject : rw.injectCdn)(route, { ...fault, times: 1 });
    try {
      const answer = await generate();
      expect(answer.text).not.toContain(PLANTED);
    } finally {
      rw.clearFaults();
    }
  });

  it('a video whose poll and failure carry the key: the task shows neither; the key went to the API only', async () => {
    rw.inject('GET task', { status: 500, body: echo(500), times: 1 });
    rw.behaviour.end = { status: 'FAILED', failureCode: 'INTERNAL', failure: `boom ${rw.apiKey} ${PLANTED}` };
    try {
      const created = await request(`${t.baseUrl}/videos`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rw/vid', prompt: 'x', seconds: 4, size: '1280x720' }) });
      expect(created.status, created.text).toBe(200);
      const id = (created.body as VideoTask).id;
      const done = await waitFor(async () => {
        const task = await request(`${t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${token}` } });
        return (task.body as VideoTask).status === 'failed' ? task : null;
      });
      expect(done.text).not.toContain(rw.apiKey);
      expect(done.text).not.toContain(PLANTED);
    } finally {
      rw.behaviour.end = { status: 'SUCCEEDED' };
    }
    expect(JSON.stringify(logs)).not.toContain(rw.apiKey);
    expect(rw.cdnRequests.every((r) => !JSON.stringify(r.headers).includes(rw.apiKey))).toBe(true);
    expect(rw.requests.every((r) => r.headers.authorization === `Bearer ${rw.apiKey}`)).toBe(true);
  });
});
