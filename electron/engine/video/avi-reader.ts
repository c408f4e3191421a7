/**
 * A small AVI (RIFF) reader for the video files other engines hand over: stable-diffusion.cpp's
 * server writes one MJPEG stream (`vids`/`MJPG`, maybe an audio stream beside it) with every
 * frame a `NNdc` chunk in `movi` and an `idx1` after it (examples/common/media_io.cpp,
 * create_mjpg_avi_from_sd_images_to_vector). Frames are read one at a time through a positional
 * source, so a long file is never in memory at once. The index is not needed: `movi` is walked
 * in order (OpenDML's extra `RIFF AVIX` parts and `LIST rec ` groups included).
 */
import { open } from 'node:fs/promises';

/** Random access to the bytes of a file (or of a buffer, in tests). */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Promise<Buffer>;
}

export interface AviInfo {
  width: number;
  height: number;
  /** Frames per second (strh rate / scale, else 1e6 / avih's microseconds per frame). */
  fps: number;
  /** The declared frame count (strh length, else avih total frames); 0 when it declares none. */
  frames: number;
  /** The video stream's codec FourCC (strf's compression, else strh's handler), e.g. "MJPG". */
  codec: string;
  /** The video stream's number: its chunks are `NNdc` with NN this, two digits. */
  stream: number;
  /** The data ranges of the `movi` lists, in file order. */
  movi: { start: number; end: number }[];
}

/** The file is not an AVI this reader can follow (the message says what was wrong). */
export class AviFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AviFormatError';
  }
}

/** The header list holds a few hundred bytes; anything near this is not a real one. */
const MAX_HEADER_LIST = 1 << 20;
/** One compressed frame larger than this is refused rather than read into memory. */
export const MAX_FRAME_BYTES = 64 << 20;
const MJPEG_CODECS = new Set(['MJPG', 'AVRN', 'LJPG', 'JPEG', 'DMB1']);

export const isMjpeg = (codec: string): boolean => MJPEG_CODECS.has(codec.toUpperCase());

export function bufferSource(bytes: Buffer): ByteSource {
  return { size: bytes.length, read: async (position, length) => bytes.subarray(position, Math.min(bytes.length, position + length)) };
}

/** A file opened for positional reads; close it when done. */
export async function fileSource(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    read: async (position, length) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
      let done = 0;
      while (done < buffer.length) {
        const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buffer.subarray(0, done);
    },
    close: () => handle.close(),
  };
}

const fourcc = (b: Buffer, at: number): string => b.toString('latin1', at, at + 4);

async function readExactly(source: ByteSource, position: number, length: number, what: string): Promise<Buffer> {
  const bytes = await source.read(position, length);
  if (bytes.length < length) throw new AviFormatError(`the file ends inside ${what}`);
  return bytes;
}

interface StreamHeader {
  type: string;
  handler: string;
  scale: number;
  rate: number;
  length: number;
  width: number;
  height: number;
  compression: string;
}

/** Reads the headers and finds the `movi` lists; throws AviFormatError when it is not an AVI with a video stream. */
export async function readAviInfo(source: ByteSource): Promise<AviInfo> {
  const head = await source.read(0, 12);
  if (head.length < 12 || fourcc(head, 0) !== 'RIFF' || fourcc(head, 8) !== 'AVI ') throw new AviFormatError('it is not an AVI file (no RIFF AVI header)');
  let avih: Buffer | null = null;
  const streams: StreamHeader[] = [];
  const movi: { start: number; end: number }[] = [];
  // The first RIFF is 'AVI '; OpenDML files continue in 'RIFF AVIX' parts, each with its own movi.
  for (let riff = 0; riff + 12 <= source.size; ) {
    const header = await source.read(riff, 12);
    if (header.length < 12 || fourcc(header, 0) !== 'RIFF') break;
    const form = fourcc(header, 8);
    if (riff > 0 && form !== 'AVIX') break;
    // A writer that died before patching the size leaves 0: the part then runs to the end of the file.
    const declared = header.readUInt32LE(4);
    const end = Math.min(source.size, declared === 0 ? source.size : riff + 8 + declared);
    for (let at = riff + 12; at + 8 <= end; ) {
      const chunk = await source.read(at, 12);
      if (chunk.length < 8) throw new AviFormatError('the file ends inside a chunk header');
      const id = fourcc(chunk, 0);
      const size = chunk.readUInt32LE(4);
      if (id === 'LIST' && size >= 4 && chunk.length >= 12) {
        const type = fourcc(chunk, 8);
        if (type === 'movi') movi.push({ start: at + 12, end: Math.min(end, at + 8 + size) });
        else if (type === 'hdrl') {
          if (size > MAX_HEADER_LIST) throw new AviFormatError('the header list is implausibly large');
          const list = await readExactly(source, at + 12, size - 4, 'the header list');
          avih = readHeaderList(list, streams) ?? avih;
        }
      }
      at += 8 + size + (size & 1);
    }
    riff += 8 + declared + (declared & 1);
    if (declared === 0) break;
  }
  if (avih === null) throw new AviFormatError('the file has no AVI main header (avih)');
  const stream = streams.findIndex((s) => s.type === 'vids');
  if (stream < 0) throw new AviFormatError('the file has no video stream');
  const video = streams[stream]!;
  if (movi.length === 0) throw new AviFormatError('the file has no movi list');
  const microSecPerFrame = avih.readUInt32LE(0);
  const fps = video.rate > 0 && video.scale > 0 ? video.rate / video.scale : microSecPerFrame > 0 ? 1_000_000 / microSecPerFrame : 0;
  const width = video.width || avih.readUInt32LE(32);
  const height = video.height || avih.readUInt32LE(36);
  if (!(fps > 0)) throw new AviFormatError('the file declares no frame rate');
  if (width <= 0 || height <= 0) throw new AviFormatError('the file declares no frame size');
  return {
    width,
    height,
    fps,
    frames: video.length || avih.readUInt32LE(16),
    codec: printable(video.compression) ? video.compression : video.handler,
    stream,
    movi,
  };
}

/** Walks hdrl's chunks: returns avih's body and collects each strl's stream header and format. */
function readHeaderList(list: Buffer, streams: StreamHeader[]): Buffer | null {
  let avih: Buffer | null = null;
  for (const { id, body } of chunksOf(list)) {
    if (id === 'avih' && body.length >= 40) avih = body;
    if (id !== 'LIST' || body.length < 4 || fourcc(body, 0) !== 'strl') continue;
    const stream: StreamHeader = { type: '', handler: '', scale: 0, rate: 0, length: 0, width: 0, height: 0, compression: '' };
    for (const part of chunksOf(body.subarray(4))) {
      if (part.id === 'strh' && part.body.length >= 36) {
        stream.type = fourcc(part.body, 0);
        stream.handler = fourcc(part.body, 4);
        stream.scale = part.body.readUInt32LE(20);
        stream.rate = part.body.readUInt32LE(24);
        stream.length = part.body.readUInt32LE(32);
      } else if (part.id === 'strf' && part.body.length >= 20) {
        // BITMAPINFOHEADER for video: biSize, biWidth, biHeight (negative: top-down), planes, bits, compression.
        stream.width = Math.abs(part.body.readInt32LE(4));
        stream.height = Math.abs(part.body.readInt32LE(8));
        stream.compression = fourcc(part.body, 16);
      }
    }
    streams.push(stream);
  }
  return avih;
}

function* chunksOf(data: Buffer): Generator<{ id: string; body: Buffer }> {
  for (let at = 0; at + 8 <= data.length; ) {
    const size = data.readUInt32LE(at + 4);
    yield { id: fourcc(data, at), body: data.subarray(at + 8, Math.min(data.length, at + 8 + size)) };
    at += 8 + size + (size & 1);
  }
}

const printable = (code: string): boolean => /^[\x20-\x7e]{4}$/.test(code) && code.trim().length > 0;

/**
 * The video stream's frames, in order, one compressed frame at a time. An empty buffer is a
 * dropped frame (AVI's "show the previous one again").
 */
export async function* aviFrames(source: ByteSource, info: AviInfo): AsyncGenerator<Buffer> {
  const prefix = String(info.stream).padStart(2, '0');
  for (const range of info.movi) {
    for (let at = range.start; at + 8 <= range.end; ) {
      const header = await readExactly(source, at, 8, 'a frame header');
      const id = fourcc(header, 0);
      const size = header.readUInt32LE(4);
      if (id === 'LIST') {
        at += 12; // a `rec ` group: its chunks follow inline
        continue;
      }
      if (at + 8 + size > range.end) throw new AviFormatError('a chunk runs past the end of its list');
      if (id.startsWith(prefix) && (id.endsWith('dc') || id.endsWith('db'))) {
        if (size > MAX_FRAME_BYTES) throw new AviFormatError(`a frame of ${size} bytes is larger than ${MAX_FRAME_BYTES}`);
        yield size === 0 ? Buffer.alloc(0) : await readExactly(source, at + 8, size, 'a frame');
      }
      at += 8 + size + (size & 1);
    }
  }
}
