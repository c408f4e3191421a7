// The runway adapter's pace at Runway's real interval, on fake timers with a stub HTTP client:
// an image task is first read 5 s after its creation and then every 5 s (longer when Runway asks
// with Retry-After), never sooner; every API call carries the key and X-Runway-Version
// 2024-11-06, the output URL neither; a video poll that fails asks the scheduler for 5 s.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../electron/core/logger.js';
import type { ImageJob, VideoJob } from '../../electron/core/providers/provider.js';
import { RunwayProvider } from '../../electron/core/providers/runway/runway-provider.js';
import type { UpstreamClient, UpstreamRequest } from '../../electron/core/providers/upstream/upstream-client.js';
import { errorForStatus, RepeatedFailureAnswer, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';
import { encodePng } from '../emulators/png.js';

interface Call {
  at: number;
  request: UpstreamRequest;
}

/** A stub client: answers in order from `answers` (a function may throw), recording each call and when. */
function stubHttp(answers: ((request: UpstreamRequest) => unknown)[]) {
  const calls: Call[] = [];
  const http = {
    async bytes(request: UpstreamRequest) {
      calls.push({ at: Date.now(), request });
      const answer = answers.shift();
      if (!answer) throw new Error(`no answer left for ${request.method} ${request.url}`);
      const value = answer(request);
      return { status: 200, body: Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value)) };
    },
    async open(request: UpstreamRequest) {
      const { body } = await http.bytes(request);
      return { status: 200, contentType: null, body: (async function* () { yield body; })() };
    },
    parseBody: (_r: UpstreamRequest, _s: number, text: string, parse: (text: string) => unknown) => parse(text),
  };
  return { http: http as unknown as UpstreamClient, calls };
}

const KEY = 'key_stub';
const build = (http: UpstreamClient) => new RunwayProvider({ id: 'rw', baseUrl: 'https://api.dev.runwayml.com', apiKey: () => KEY, timeoutMs: 300_000 }, http, silentLogger);
const job = (): ImageJob => ({ model: { id: 'rw/gen4' } as ImageJob['model'], upstreamModel: 'gen4_image', prompt: 'a fox', width: 1024, height: 1024, sizeGiven: true, workflow: null });
const rateLimited = (seconds: string) => () => {
  throw new UpstreamStatusError(errorForStatus(429, seconds), 429, null, '{}');
};

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('image tasks at Runway\u2019s pace', () => {
  it('reads the task 5 s after creating it and every 5 s after, then fetches the output without the key', async () => {
    const { http, calls } = stubHttp([
      () => ({ id: 'task-1' }),
      () => ({ id: 'task-1', status: 'PENDING' }),
      () => ({ id: 'task-1', status: 'THROTTLED' }),
      () => ({ id: 'task-1', status: 'RUNNING', progress: 0.4 }),
      () => ({ id: 'task-1', status: 'SUCCEEDED', output: ['https://cdn.example/out.png?_jwt=x'] }),
      () => encodePng(8, 8),
    ]);
    const provider = build(http);
    expect(provider.pollIntervalMs).toBe(5_000);
    const progress: number[] = [];
    const done = provider.generateImage({ ...job(), onProgress: (p) => progress.push(p) });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(calls.map((c) => c.request.method)).toEqual(['POST']);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(15_000);
    const outcome = await done;
    expect(outcome.bytes.readUInt32BE(0)).toBe(0x89504e47);
    expect(calls.map((c) => c.at)).toEqual([0, 5_000, 10_000, 15_000, 20_000, 20_000]);
    expect(calls.map((c) => `${c.request.method} ${c.request.url}`)).toEqual([
      'POST https://api.dev.runwayml.com/v1/text_to_image',
      ...Array(4).fill('GET https://api.dev.runwayml.com/v1/tasks/task-1'),
      'GET https://cdn.example/out.png?_jwt=x',
    ]);
    for (const call of calls.slice(0, 5)) expect(call.request.headers).toEqual({ authorization: `Bearer ${KEY}`, 'x-runway-version': '2024-11-06' });
    expect(calls[5]!.request.headers).toBeUndefined();
    expect(progress).toEqual([40, 100]);
  });

  it('a rate-limited read waits what Runway asks (12 s), a shorter ask still 5 s; the task is read again, not left', async () => {
    const { http, calls } = stubHttp([
      () => ({ id: 't' }),
      rateLimited('12'),
      rateLimited('1'),
      () => ({ id: 't', status: 'SUCCEEDED', output: ['https://cdn.example/o.png'] }),
      () => encodePng(8, 8),
    ]);
    const done = build(http).generateImage(job());
    await vi.advanceTimersByTimeAsync(40_000);
    await done;
    expect(calls.map((c) => c.at)).toEqual([0, 5_000, 17_000, 22_000, 22_000]);
  });

  it('the provider timeout ends the wait and cancels the task (DELETE)', async () => {
    const answers: ((r: UpstreamRequest) => unknown)[] = [() => ({ id: 't' })];
    for (let i = 0; i < 20; i++) answers.push(() => ({ id: 't', status: 'RUNNING', progress: 0.1 }));
    answers.push(() => Buffer.alloc(0));
    const { http, calls } = stubHttp(answers);
    const provider = new RunwayProvider({ id: 'rw', baseUrl: 'https://api.dev.runwayml.com/v1', apiKey: () => KEY, timeoutMs: 12_000 }, http, silentLogger);
    const done = provider.generateImage(job()).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(13_000);
    expect(await done).toMatchObject({ code: 'upstream_unavailable', message: expect.stringMatching(/within the provider\u2019s timeout/) });
    expect(calls.map((c) => c.request.method)).toEqual(['POST', 'GET', 'GET', 'DELETE']);
    expect(calls.at(-1)!.request.url).toBe('https://api.dev.runwayml.com/v1/tasks/t');
  });
});

describe('video polls', () => {
  const video = (): VideoJob => ({ taskId: 'v', modelId: 'rw/veo', upstreamModel: 'veo3.1', requestType: 'text-to-video', prompt: 'x', seconds: 4, size: '1280x720', width: 1280, height: 720, referencePaths: [], outputPath: '/nonexistent/v.mp4', workflow: null, fps: 24 });

  it('a failed poll asks the scheduler to wait at least 5 s (Retry-After), or longer when Runway asked', async () => {
    const unavailable = () => {
      throw new UpstreamStatusError(errorForStatus(503, null), 503, null, '');
    };
    const { http } = stubHttp([unavailable, rateLimited('30'), () => ({ id: 'x', status: 'SUCCEEDED', output: ['https://cdn.example/v.mp4'] }), rateLimited('40')]);
    const provider = build(http);
    await expect(provider.pollVideo(video(), 'x')).rejects.toMatchObject({ code: 'upstream_unavailable', headers: { 'retry-after': '5' } });
    await expect(provider.pollVideo(video(), 'x')).rejects.toMatchObject({ code: 'upstream_rate_limited', headers: { 'retry-after': '30' } });
    // The output cannot be fetched (its host rate limits): a failure that ends the task when it keeps coming, its wait kept.
    const lost = await provider.pollVideo(video(), 'x').catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(RepeatedFailureAnswer);
    expect(lost).toMatchObject({ code: 'upstream_unavailable', headers: { 'retry-after': '40' }, taskMessage: expect.stringMatching(/could not fetch it/) });
  });
});
