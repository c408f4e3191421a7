/**
 * Worker side of a transcode: another engine's video file (an MJPEG AVI, an animated WebP) is
 * read one frame at a time, decoded with sharp to RGB, converted to I420 and fed to the H.264
 * encoder, so only one decoded frame is ever in memory. Runs in the encode worker only (it loads
 * the encoder; see encoder.ts).
 */
import { readFile } from 'node:fs/promises';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { aviFrames, AviFormatError, fileSource, isMjpeg, readAviInfo } from './avi-reader.js';
import { openEncoder, type Mp4Encoder } from './encoder.js';
import { finalizeMp4 } from './mp4-finalize.js';
import type { TranscodedInfo, TranscodeJob } from './protocol.js';
import { rgbToI420 } from './rgb-i420.js';
import { createFrame } from './yuv-frame.js';

/** The input is not a video this can decode (the message says why, in plain words). */
export class TranscodeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscodeInputError';
  }
}

const MAX_SIDE = 4096;
const MAX_FPS = 120;

/** A readable input: its frame size and rate, and its frames as images to decode (null: repeat the last). */
interface FrameInput {
  width: number;
  height: number;
  fps: number;
  /** Declared frame count, for progress; 0 when unknown. */
  frames: number;
  images(): AsyncGenerator<Sharp | null>;
  close(): Promise<void>;
}

export async function transcodeFile(job: TranscodeJob, name: string, progress: (percent: number) => void): Promise<{ mp4: Uint8Array; info: TranscodedInfo }> {
  const input = await openInput(job.inputPath);
  let encoder: Mp4Encoder | null = null;
  try {
    const width = input.width & ~1;
    const height = input.height & ~1;
    if (width < 2 || height < 2 || width > MAX_SIDE || height > MAX_SIDE) throw new TranscodeInputError(`its frame size ${input.width}x${input.height} is outside 2..${MAX_SIDE}`);
    const fps = Math.min(MAX_FPS, Math.max(1, Math.round(input.fps)));
    const frame = createFrame(width, height);
    encoder = await openEncoder({ width, height, fps, name });
    let frames = 0;
    let reported = 0;
    for await (const image of input.images()) {
      if (image !== null) rgbToI420(await decode(image, width, height, frames), frame);
      else if (frames === 0) continue; // nothing to repeat yet
      encoder.addFrame(frame.data);
      frames++;
      if (input.frames > 0) {
        const percent = Math.min(99, Math.floor((frames * 99) / input.frames));
        if (percent > reported) progress((reported = percent));
      }
    }
    if (frames === 0) throw new TranscodeInputError('it has no frames');
    const raw = encoder.finish();
    encoder = null;
    let mp4: Uint8Array;
    try {
      mp4 = finalizeMp4(raw);
    } catch {
      mp4 = raw; // still a valid MP4, without seek points or faststart
    }
    return { mp4, info: { width, height, fps, frames } };
  } catch (error) {
    encoder?.dispose();
    throw error instanceof AviFormatError ? new TranscodeInputError(error.message) : error;
  } finally {
    await input.close();
  }
}

async function decode(image: Sharp, width: number, height: number, index: number): Promise<Uint8Array> {
  try {
    const { data, info } = await image
      .resize(width, height, { fit: 'fill' })
      .flatten({ background: '#000000' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || info.width !== width || info.height !== height) throw new Error(`decoded as ${info.width}x${info.height}x${info.channels}`);
    return data;
  } catch (error) {
    throw new TranscodeInputError(`frame ${index + 1} could not be decoded (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Opens the file by what its bytes are, not by its name. */
async function openInput(path: string): Promise<FrameInput> {
  const source = await fileSource(path);
  let keep = false;
  try {
    const head = await source.read(0, 16);
    const riff = head.toString('latin1', 0, 4) === 'RIFF';
    const form = head.toString('latin1', 8, 12);
    if (riff && form === 'AVI ') {
      const info = await readAviInfo(source);
      if (!isMjpeg(info.codec)) throw new TranscodeInputError(`its AVI video is ${JSON.stringify(info.codec)}, not MJPEG`);
      keep = true;
      return {
        ...info,
        images: async function* () {
          for await (const jpeg of aviFrames(source, info)) yield jpeg.length === 0 ? null : sharp(jpeg);
        },
        close: () => source.close(),
      };
    }
    if (riff && form === 'WEBP') return await webpInput(path);
    if (head.toString('latin1', 4, 8) === 'ftyp') throw new TranscodeInputError('it is already an MP4');
    if (head.readUInt32BE(0) === 0x1a45dfa3) throw new TranscodeInputError('it is WebM/Matroska, which the gateway cannot decode');
    throw new TranscodeInputError('its format is not one the gateway can decode (MJPEG AVI or animated WebP)');
  } catch (error) {
    throw error instanceof AviFormatError ? new TranscodeInputError(error.message) : error;
  } finally {
    if (!keep) await source.close();
  }
}

/**
 * An animated WebP (sd.cpp's other video format): its encoded bytes are read whole (they are
 * compressed), its pages decoded one at a time.
 */
async function webpInput(path: string): Promise<FrameInput> {
  const bytes = await readFile(path);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { animated: true }).metadata();
  } catch (error) {
    throw new TranscodeInputError(`its WebP could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const pages = meta.pages ?? 1;
  const height = meta.pageHeight ?? meta.height ?? 0;
  // Frames may last different times (an encoder merges equal neighbours into one longer frame):
  // the shortest delay is the frame period, and a longer page is shown for as many periods.
  const delays = Array.from({ length: pages }, (_, i) => meta.delay?.[i] ?? 0);
  const period = Math.min(...delays.filter((d) => d > 0), Number.POSITIVE_INFINITY);
  const repeats = delays.map((d) => (Number.isFinite(period) && d > 0 ? Math.max(1, Math.round(d / period)) : 1));
  return {
    width: meta.width ?? 0,
    height,
    fps: Number.isFinite(period) ? 1000 / period : 16,
    frames: repeats.reduce((a, b) => a + b, 0),
    images: async function* () {
      for (let page = 0; page < pages; page++) {
        yield sharp(bytes, { page, pages: 1 });
        for (let again = 1; again < repeats[page]!; again++) yield null;
      }
    },
    close: async () => undefined,
  };
}
