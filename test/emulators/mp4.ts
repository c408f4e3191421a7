// MP4 files for fake video downloads.
//  - playableMp4: a real, playable H.264 MP4 (ISO/IEC 14496-12 and -15: ftyp, moov with one avc1
//    track and its sample tables, then mdat; moov first, as a streaming server serves it) of the
//    requested size and duration, padded to a realistic bitrate. What the emulators serve.
//  - tinyMp4: MP4-looking bytes (a box tree with width/height/duration and no samples). Not
//    playable; for stand-ins that only need a file whose boxes parse.
import { encodeH264 } from './h264.js';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...values: number[]): Buffer {
  const buf = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => buf.writeUInt32BE(value >>> 0, i * 4));
  return buf;
}

function u16(...values: number[]): Buffer {
  const buf = Buffer.alloc(values.length * 2);
  values.forEach((value, i) => buf.writeUInt16BE(value & 0xffff, i * 2));
  return buf;
}

const UNITY_MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);
const TIMESCALE = 1000;

export interface Mp4Options {
  width: number;
  height: number;
  durationMs: number;
  /** Filler written into mdat so files have a realistic, non-trivial size. */
  payloadBytes?: number;
}

export function tinyMp4(options: Mp4Options): Buffer {
  const duration = Math.max(0, Math.round(options.durationMs));
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mvhd = box(
    'mvhd',
    u32(0, 0, 0, TIMESCALE, duration, 0x00010000),
    u16(0x0100),
    Buffer.alloc(10),
    UNITY_MATRIX,
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = box(
    'tkhd',
    u32(0x00000003, 0, 0, 1, 0, duration),
    Buffer.alloc(8),
    u16(0, 0, 0, 0),
    UNITY_MATRIX,
    u32(options.width * 0x10000, options.height * 0x10000),
  );
  const mdhd = box('mdhd', u32(0, 0, 0, TIMESCALE, duration), u16(0x55c4, 0));
  const hdlr = box('hdlr', u32(0, 0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('VideoHandler\0', 'latin1'));
  const moov = box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr)));
  const filler = Buffer.alloc(options.payloadBytes ?? 1024);
  for (let i = 0; i < filler.length; i++) filler[i] = (i * 31) & 0xff;
  return Buffer.concat([ftyp, moov, box('mdat', filler)]);
}

/** Parses 'WxH' (e.g. '1280x720'); undefined when malformed. */
export function parseSize(size: string): { width: number; height: number } | undefined {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

export interface PlayableMp4Options {
  width: number;
  height: number;
  durationMs: number;
  /** Frames per second (default 30, Sora's rate). */
  fps?: number;
  /**
   * Size of one second of video. Default: 0.2 byte per pixel per second (720x1280 ~ 1.5 Mbit/s,
   * about what a hosted text-to-video model's 720p H.264 output carries).
   */
  bytesPerSecond?: number;
}

const full = (version: number, flags: number) => u32(((version & 0xff) << 24) | (flags & 0xffffff));

function sampleEntry(width: number, height: number, avcC: Buffer): Buffer {
  const compressor = Buffer.alloc(32);
  compressor.write('\u000fmgw emulator h264', 0, 'latin1');
  return box(
    'avc1',
    Buffer.alloc(6),
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined, reserved
    u16(width, height),
    u32(0x00480000, 0x00480000, 0), // 72 dpi, reserved
    u16(1), // frame_count
    compressor,
    u16(0x0018, 0xffff), // depth, pre_defined -1
    avcC,
  );
}

const mp4Cache = new Map<string, Buffer>();

/** A playable H.264 MP4 (cached by its options: the emulators serve the same few over and over). */
export function playableMp4(options: PlayableMp4Options): Buffer {
  const fps = options.fps ?? 30;
  const bytesPerSecond = options.bytesPerSecond ?? Math.round(options.width * options.height * 0.2);
  const key = `${options.width}x${options.height}:${options.durationMs}:${fps}:${bytesPerSecond}`;
  const cached = mp4Cache.get(key);
  if (cached) return cached;
  const frames = Math.max(1, Math.round((options.durationMs / 1000) * fps));
  const stream = encodeH264({ width: options.width, height: options.height, fps, frames, gop: fps * 2, frameBytes: Math.floor(bytesPerSecond / fps) });
  const samples = stream.frames.map((frame) => Buffer.concat(frame.nals.flatMap((nal) => [u32(nal.length), nal])));
  const timescale = fps * 512;
  const mediaDuration = frames * 512;
  const durationMs = Math.round((frames * 1000) / fps);

  const avcC = box(
    'avcC',
    Buffer.from([1, stream.profile, stream.constraints, stream.level, 0xff, 0xe1]),
    u16(stream.sps.length),
    stream.sps,
    Buffer.from([1]),
    u16(stream.pps.length),
    stream.pps,
  );
  const sync = stream.frames.flatMap((frame, i) => (frame.key ? [i + 1] : []));
  const stbl = (chunkOffset: number) =>
    box(
      'stbl',
      box('stsd', full(0, 0), u32(1), sampleEntry(options.width, options.height, avcC)),
      box('stts', full(0, 0), u32(1, frames, 512)),
      box('stss', full(0, 0), u32(sync.length, ...sync)),
      box('stsc', full(0, 0), u32(1, 1, frames, 1)), // one chunk holding every sample
      box('stsz', full(0, 0), u32(0, frames, ...samples.map((s) => s.length))),
      box('stco', full(0, 0), u32(1, chunkOffset)),
    );
  const moov = (chunkOffset: number) =>
    box(
      'moov',
      box('mvhd', full(0, 0), u32(0, 0, 1000, durationMs, 0x00010000), u16(0x0100), Buffer.alloc(10), UNITY_MATRIX, Buffer.alloc(24), u32(2)),
      box(
        'trak',
        box('tkhd', full(0, 3), u32(0, 0, 1, 0, durationMs), Buffer.alloc(8), u16(0, 0, 0, 0), UNITY_MATRIX, u32(options.width * 0x10000, options.height * 0x10000)),
        box(
          'mdia',
          box('mdhd', full(0, 0), u32(0, 0, timescale, mediaDuration), u16(0x55c4, 0)), // language 'und'
          box('hdlr', full(0, 0), u32(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('VideoHandler\0', 'latin1')),
          box(
            'minf',
            box('vmhd', full(0, 1), u16(0, 0, 0, 0)),
            box('dinf', box('dref', full(0, 0), u32(1), box('url ', full(0, 1)))),
            stbl(chunkOffset),
          ),
        ),
      ),
    );
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  // moov's size does not depend on the offset's value: build it once to learn where mdat's data starts.
  const dataStart = ftyp.length + moov(0).length + 8;
  const file = Buffer.concat([ftyp, moov(dataStart), box('mdat', ...samples)]);
  mp4Cache.set(key, file);
  return file;
}
