// MP4-looking bytes for fake video downloads: a valid ISO-BMFF box tree (ftyp, moov with mvhd and
// one video trak carrying width/height/duration, then mdat). Not playable; parsable by box readers.

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
