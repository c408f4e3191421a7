// A finished Veo video fetched by the gemini kind (gemini-video.ts): a URI that names a file of the
// API is asked of the configured API by its id, with the key, as the official SDK's downloader
// does, whatever host the URI names; any other URI is fetched as given, the key only to the API's
// origin. A failure to write the video into the data dir is the gateway's own, never a fetch fault.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../electron/core/logger.js';
import { saveVideo, videoSource } from '../../electron/core/providers/gemini/gemini-video.js';
import { apiRoot } from '../../electron/core/providers/gemini/gemini-mapping.js';
import { UpstreamClient } from '../../electron/core/providers/upstream/upstream-client.js';
import { RepeatedFailureAnswer } from '../../electron/core/providers/upstream/upstream-errors.js';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.js';

const GOOGLE = 'https://generativelanguage.googleapis.com';
const API = 'http://127.0.0.1:4100/v1beta';

describe('where the video is fetched', () => {
  it.each([
    ['a file on Google\u2019s host while the base URL is another', `${GOOGLE}/v1beta/files/abc123:download?alt=media`],
    ['a file on the API itself', 'http://127.0.0.1:4100/v1beta/files/abc123:download?alt=media'],
    ['a file without ":download"', `${GOOGLE}/v1beta/files/abc123`],
    ['a file by its resource name', 'files/abc123'],
  ])('%s: its id asked of the configured API, with the key', (_name, uri) => {
    expect(videoSource(uri, API)).toEqual({ url: `${API}/files/abc123:download?alt=media`, withKey: true });
  });

  it('an id with dashes is kept whole (the API allows them; the SDK\u2019s [a-z0-9]+ would cut it)', () => {
    expect(videoSource(`${GOOGLE}/v1beta/files/my-clip-2:download?alt=media`, API)?.url).toBe(`${API}/files/my-clip-2:download?alt=media`);
  });

  it('a URI that names no file: fetched as given, the key only to the API\u2019s own origin', () => {
    expect(videoSource('https://storage.example.com/videos/abc.mp4?sig=x', API)).toEqual({ url: 'https://storage.example.com/videos/abc.mp4?sig=x', withKey: false });
    expect(videoSource('https://storage.example.com/files/abc.mp4', API)).toEqual({ url: 'https://storage.example.com/files/abc.mp4', withKey: false });
    expect(videoSource('http://127.0.0.1:4100/media/abc.mp4', API)).toEqual({ url: 'http://127.0.0.1:4100/media/abc.mp4', withKey: true });
  });

  it('not an http(s) URI: nothing to fetch', () => {
    expect(videoSource('gs://bucket/abc.mp4', API)).toBeNull();
    expect(videoSource('not a uri', API)).toBeNull();
    expect(videoSource('files/UPPER', API)).toBeNull();
  });
});

describe('saving the video (against the Gemini API emulator)', () => {
  let emu: GeminiEmulator;
  const dir = mkdtempSync(join(tmpdir(), 'gemini-video-'));
  const http = new UpstreamClient(silentLogger, () => []);

  beforeAll(async () => {
    emu = await startGeminiEmulator();
  });
  afterAll(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A Veo operation run to its end on the emulator: the URI its answer names. */
  async function finishedUri(): Promise<{ uri: string; fileId: string }> {
    const headers = { 'x-goog-api-key': emu.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${emu.origin}/v1beta/models/veo-3.0-generate-001:predictLongRunning`, { method: 'POST', headers, body: JSON.stringify({ instances: [{ prompt: 'waves' }] }) });
    const { name } = (await created.json()) as { name: string };
    const done = (await (await fetch(`${emu.origin}/v1beta/${name}`, { headers })).json()) as { response: { generateVideoResponse: { generatedSamples: { video: { uri: string } }[] } } };
    return { uri: done.response.generateVideoResponse.generatedSamples[0]!.video.uri, fileId: emu.operations.get(name)!.fileId };
  }

  it('a URI on Google\u2019s host while the base URL is the emulator: downloaded from the emulator, with the key', async () => {
    emu.nameFilesAt(GOOGLE);
    let video: { uri: string; fileId: string };
    try {
      video = await finishedUri();
    } finally {
      emu.nameFilesAt(null);
    }
    expect(video.uri).toBe(`${GOOGLE}/v1beta/files/${video.fileId}:download?alt=media`);
    const output = join(dir, 'google-host.mp4');
    expect(await saveVideo(http, { uri: video.uri, bytes: null }, output, apiRoot(emu.origin), emu.apiKey)).toBeNull();
    expect(existsSync(output)).toBe(true);
    const asked = emu.requests.filter((r) => r.route === 'GET file' && r.path.includes(video.fileId));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.path).toBe(`/v1beta/files/${video.fileId}:download?alt=media`);
    expect(asked[0]!.headers['x-goog-api-key']).toBe(emu.apiKey);
    // Storage, another origin, gets no key (the redirect drops it).
    expect(emu.storageRequests.find((r) => r.path.includes(video.fileId))!.headers['x-goog-api-key']).toBeUndefined();
  });

  it('the data dir refusing the write: that error as it is, not a fetch fault that would fail the task as unfetchable', async () => {
    const { uri } = await finishedUri();
    const notADir = join(dir, 'a-file');
    writeFileSync(notADir, 'x');
    const error = await saveVideo(http, { uri, bytes: null }, join(notADir, 'out.mp4'), apiRoot(emu.origin), emu.apiKey).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(RepeatedFailureAnswer);
    expect(error).toMatchObject({ code: 'ENOTDIR' });
  });

  it('the API refusing the file (gone): a fetch fault, which fails the task only when it keeps coming', async () => {
    emu.inject('GET file', { status: 404, times: 1 });
    const { uri } = await finishedUri();
    await expect(saveVideo(http, { uri, bytes: null }, join(dir, 'gone.mp4'), apiRoot(emu.origin), emu.apiKey)).rejects.toBeInstanceOf(RepeatedFailureAnswer);
  });
});
