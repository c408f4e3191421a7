// The official `openai` Python package as a client (issue 23): a real gateway over HTTP, and a
// Python script that lists models, generates an image, edits three PNGs, creates a video, polls it
// and downloads the MP4, printing one JSON line the test checks (the MP4 with ffprobe, the images
// decoded with sharp). python3 with `openai` is required (never skipped): .ci/run installs it and
// test/require-tools.mjs checks it before `npm test` starts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { ffprobe, readMp4 } from '../helpers/mp4.js';

const run = promisify(execFile);

const SCRIPT = String.raw`
import json, os, struct, sys, time
import openai

work = sys.argv[1]
client = openai.OpenAI(max_retries=0, timeout=60)  # OPENAI_BASE_URL and OPENAI_API_KEY from the env
out = {"openai_version": openai.__version__}

def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise SystemExit("not a PNG: %r" % data[:16])
    return list(struct.unpack(">II", data[16:24]))

models = client.models.list()
out["model_ids"] = [m.id for m in models]
video_model = next(m for m in models.data if m.id == "local-video")
out["model_extra_keys"] = sorted((video_model.model_extra or {}).keys())

generated = client.images.generate(model="local-image", prompt="a lighthouse on a cliff at dusk", size="1024x1024")
data = __import__("base64").b64decode(generated.data[0].b64_json)
open(os.path.join(work, "generated.png"), "wb").write(data)
out["generate"] = {
    "count": len(generated.data),
    "png_size": png_size(data),
    "created": generated.created,
    "input_tokens": generated.usage.input_tokens,
    "cost_usd": getattr(generated.usage, "cost_usd", None),
}

files = [open(os.path.join(work, name), "rb") for name in ("a.png", "b.png", "c.png")]
edited = client.images.edit(model="local-image", image=files, prompt="put these side by side in a collage")
for f in files:
    f.close()
data = __import__("base64").b64decode(edited.data[0].b64_json)
open(os.path.join(work, "edited.png"), "wb").write(data)
out["edit"] = {"count": len(edited.data), "png_size": png_size(data), "cost_usd": getattr(edited.usage, "cost_usd", None)}

created = client.videos.create(model="local-video", prompt="waves rolling onto a beach", seconds="4", size="1280x720")
out["video_created"] = {"id": created.id, "object": created.object, "status": created.status, "seconds": created.seconds, "size": created.size}
deadline = time.monotonic() + 120
video = created
while video.status in ("queued", "in_progress"):
    if time.monotonic() > deadline:
        raise SystemExit("video %s still %s after 120 s" % (video.id, video.status))
    time.sleep(0.2)
    video = client.videos.retrieve(created.id)
out["video"] = {
    "id": video.id, "status": video.status, "progress": video.progress, "seconds": video.seconds, "size": video.size,
    "expires_at": video.expires_at, "request_type": getattr(video, "request_type", None), "cost_usd": getattr(video, "cost_usd", None),
}

content = client.videos.download_content(created.id)
content.write_to_file(os.path.join(work, "video.mp4"))
out["download"] = {"content_type": content.response.headers.get("content-type"), "bytes": len(content.content)}

# This gateway's own values, outside the SDK's VideoSeconds and VideoSize types, go through as sent.
small = client.videos.create(model="local-video", prompt="a paper boat", seconds="2", size="480p")
deadline = time.monotonic() + 120
while small.status in ("queued", "in_progress"):
    if time.monotonic() > deadline:
        raise SystemExit("video %s still %s" % (small.id, small.status))
    time.sleep(0.2)
    small = client.videos.retrieve(small.id)
out["small_video"] = {"status": small.status, "seconds": small.seconds, "size": small.size}

# On a finished task DELETE changes nothing and answers the task object, not OpenAI's
# {id, object: "video.deleted", deleted}: the typed answer shows that (docs/decisions.md).
deleted = client.videos.delete(created.id)
out["delete"] = {"type": type(deleted).__name__, "id": deleted.id, "object": deleted.object, "deleted": getattr(deleted, "deleted", None), "status": getattr(deleted, "status", None)}

print(json.dumps(out))
`;

interface Result {
  openai_version: string;
  model_ids: string[];
  model_extra_keys: string[];
  generate: { count: number; png_size: [number, number]; created: number | null; input_tokens: number | null; cost_usd: string | null };
  edit: { count: number; png_size: [number, number]; cost_usd: string | null };
  video_created: { id: string; object: string; status: string; seconds: string; size: string };
  video: { id: string; status: string; progress: number; seconds: string; size: string; expires_at: number | null; request_type: string | null; cost_usd: string | null };
  download: { content_type: string; bytes: number };
  small_video: { status: string; seconds: string; size: string };
  delete: { type: string; id: string; object: string; deleted: boolean | null; status: string | null };
}

const MISSING = 'python3 with the openai package is required: python3 -m pip install openai';

/** Fails (never skips) with one clear line when python3 or its openai package is missing. */
async function requirePythonOpenai(): Promise<void> {
  try {
    await run('python3', ['-c', 'import openai'], { timeout: 60_000 });
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`${MISSING} (${stderr?.trim().split('\n').at(-1) || message})`);
  }
}

let t: TestGateway;
let work: string;

beforeAll(async () => {
  t = await startTestGateway();
  work = mkdtempSync(join(tmpdir(), 'mgw-python-sdk-'));
});
afterAll(async () => {
  await t?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the official openai Python package', () => {
  it('lists models, generates and edits images (three PNGs), creates, polls and downloads a video', async () => {
    await requirePythonOpenai();
    const { token } = await t.key('balance', { balanceNano: 20 * USD });
    // Three references of one height: a collage puts them side by side, 160 + 120 + 240 wide.
    writeFileSync(join(work, 'a.png'), await makeImage(160, 120, 'png'));
    writeFileSync(join(work, 'b.png'), await makeImage(120, 120, 'png'));
    writeFileSync(join(work, 'c.png'), await makeImage(240, 120, 'png'));
    writeFileSync(join(work, 'script.py'), SCRIPT);

    const { stdout } = await run('python3', [join(work, 'script.py'), work], {
      timeout: 170_000,
      maxBuffer: 1 << 20,
      env: { ...process.env, OPENAI_BASE_URL: t.baseUrl, OPENAI_API_KEY: token, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' },
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the Python script failed: ${error.message}\n${error.stderr ?? ''}\n${error.stdout ?? ''}`);
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Result;

    expect(result.model_ids).toEqual(expect.arrayContaining(['local-image', 'local-video']));
    // The catalog's own fields reach the typed Model as extras.
    expect(result.model_extra_keys).toEqual(expect.arrayContaining(['capabilities', 'pricing', 'model_type']));

    // Generation: a real 1024x1024 PNG, checked in Python (signature, IHDR) and decoded here.
    // No `created`, and `usage` is {cost_usd}: the typed fields read None, cost_usd is an extra.
    expect(result.generate).toMatchObject({ count: 1, png_size: [1024, 1024], created: null, input_tokens: null });
    expect(Number(result.generate.cost_usd)).toBeGreaterThan(0);
    expect(await decodeB64(readFileSync(join(work, 'generated.png')).toString('base64'))).toEqual({ format: 'png', width: 1024, height: 1024 });

    // Edit with three files: the collage has all three pieces.
    expect(result.edit).toMatchObject({ count: 1, png_size: [520, 120] });
    expect(Number(result.edit.cost_usd)).toBeGreaterThan(0);
    expect(await decodeB64(readFileSync(join(work, 'edited.png')).toString('base64'))).toEqual({ format: 'png', width: 520, height: 120 });

    // Video: queued, then completed through retrieve; 4 s x $0.05 text-to-video.
    expect(result.video_created).toMatchObject({ object: 'video', status: 'queued', seconds: '4', size: '1280x720' });
    expect(result.video).toMatchObject({
      id: result.video_created.id,
      status: 'completed',
      progress: 100,
      seconds: '4',
      size: '1280x720',
      expires_at: null,
      request_type: 'text-to-video',
      cost_usd: '0.20000000',
    });

    // The downloaded MP4, box by box and with ffprobe.
    const mp4 = join(work, 'video.mp4');
    const bytes = readFileSync(mp4);
    expect(result.download).toEqual({ content_type: 'video/mp4', bytes: bytes.length });
    expect(readMp4(bytes)).toMatchObject({ codec: 'avc1', width: 1280, height: 720 });
    const probe = ffprobe(mp4);
    expect(probe).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    expect(probe.duration).toBeCloseTo(4, 1);
    expect(probe.frames).toBeGreaterThan(0);

    expect(result.small_video).toEqual({ status: 'completed', seconds: '2', size: '480p' });

    // DELETE on a finished task answers the task object; the SDK types it as VideoDeleteResponse.
    expect(result.delete).toEqual({ type: 'VideoDeleteResponse', id: result.video_created.id, object: 'video', deleted: null, status: 'completed' });
  }, 200_000);
});
