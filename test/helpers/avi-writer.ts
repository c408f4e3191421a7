// A tiny MJPEG AVI writer for tests, laid out as stable-diffusion.cpp's server writes one
// (examples/common/media_io.cpp, create_mjpg_avi_from_sd_images_to_vector): RIFF 'AVI ', LIST
// hdrl (avih, LIST strl with strh 'vids'/'MJPG' and a BITMAPINFOHEADER strf), LIST movi of
// '00dc' JPEG chunks padded to even length, then idx1. Options reshape it the ways other writers
// do (an audio stream first, 'rec ' groups, no index, a dropped frame) for the reader's tests.
import sharp from 'sharp';

export interface AviOptions {
  width: number;
  height: number;
  fps: number;
  /** The RGB colour of each frame (one frame each); frames are solid with a white square moving across. */
  colors: [number, number, number][];
  /** An audio stream listed before the video, so the video is stream 01 ('01dc'). */
  audioFirst?: boolean;
  /** Each frame wrapped in a LIST 'rec '. */
  recLists?: boolean;
  /** Leave out idx1. */
  noIndex?: boolean;
  /** Frame numbers (0-based) written as empty chunks: "show the previous frame again". */
  dropped?: number[];
  /** The codec FourCC written in strh and strf (default MJPG). */
  codec?: string;
  /** Replaces the JPEG bytes of these frames with garbage. */
  corrupt?: number[];
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const cc = (s: string): Buffer => Buffer.from(s, 'latin1');
const chunk = (id: string, body: Buffer): Buffer => Buffer.concat([cc(id), u32(body.length), body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
const list = (type: string, parts: Buffer[]): Buffer => {
  const body = Buffer.concat([cc(type), ...parts]);
  return Buffer.concat([cc('LIST'), u32(body.length), body]);
};

/** One test frame as JPEG: a solid colour with a white square whose place depends on the frame number. */
export async function testFrameJpeg(width: number, height: number, color: [number, number, number], index: number): Promise<Buffer> {
  const side = Math.max(2, Math.floor(Math.min(width, height) / 4));
  const square = await sharp({ create: { width: side, height: side, channels: 3, background: { r: 255, g: 255, b: 255 } } }).png().toBuffer();
  const left = (index * 7) % Math.max(1, width - side);
  return sharp({ create: { width, height, channels: 3, background: { r: color[0], g: color[1], b: color[2] } } })
    .composite([{ input: square, left, top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

export async function buildMjpegAvi(options: AviOptions): Promise<Buffer> {
  const { width, height, fps, colors } = options;
  const codec = options.codec ?? 'MJPG';
  const videoStream = options.audioFirst ? 1 : 0;
  const streamCount = options.audioFirst ? 2 : 1;
  const avih = Buffer.concat([
    u32(Math.round(1_000_000 / fps)), u32(0), u32(0), u32(0x110), u32(colors.length), u32(0), u32(streamCount),
    u32(width * height * 3), u32(width), u32(height), u32(0), u32(0), u32(0), u32(0),
  ]);
  const strh = Buffer.concat([
    cc('vids'), cc(codec), u32(0), u16(0), u16(0), u32(0), u32(1), u32(fps), u32(0), u32(colors.length),
    u32(width * height * 3), u32(0xffffffff), u32(0), u16(0), u16(0), u16(0), u16(0),
  ]);
  const strf = Buffer.concat([u32(40), u32(width), u32(height), u16(1), u16(24), cc(codec), u32(width * height * 3), u32(0), u32(0), u32(0), u32(0)]);
  const videoStrl = list('strl', [chunk('strh', strh), chunk('strf', strf)]);
  const audioStrl = list('strl', [
    chunk('strh', Buffer.concat([cc('auds'), u32(0), u32(0), u16(0), u16(0), u32(0), u32(2), u32(32000), u32(0), u32(0), u32(0), u32(0xffffffff), u32(2), u16(0), u16(0), u16(0), u16(0)])),
    chunk('strf', Buffer.concat([u16(1), u16(1), u32(16000), u32(32000), u16(2), u16(16)])),
  ]);
  const hdrl = list('hdrl', [chunk('avih', avih), ...(options.audioFirst ? [audioStrl, videoStrl] : [videoStrl])]);

  const prefix = String(videoStream).padStart(2, '0');
  const movieParts: Buffer[] = [];
  const index: Buffer[] = [];
  let offset = 4; // idx1 offsets count from the 'movi' fourcc
  for (let i = 0; i < colors.length; i++) {
    let jpeg = options.dropped?.includes(i) ? Buffer.alloc(0) : await testFrameJpeg(width, height, colors[i]!, i);
    if (options.corrupt?.includes(i)) jpeg = Buffer.from('this is not a jpeg frame at all');
    let part = chunk(`${prefix}dc`, jpeg);
    index.push(Buffer.concat([cc(`${prefix}dc`), u32(0x10), u32(offset), u32(jpeg.length)]));
    if (options.recLists) part = list('rec ', [part]);
    movieParts.push(part);
    offset += part.length;
    if (options.audioFirst && i === 0) {
      // A little PCM beside the first frame, as the '00wb' chunk a stream 00 of audio writes.
      const audio = chunk('00wb', Buffer.alloc(64));
      movieParts.push(audio);
      offset += audio.length;
    }
  }
  const movi = list('movi', movieParts);
  const idx1 = options.noIndex ? Buffer.alloc(0) : chunk('idx1', Buffer.concat(index));
  const body = Buffer.concat([cc('AVI '), hdrl, list('INFO', [chunk('ISFT', cc('mgw-test\0'))]), chunk('JUNK', Buffer.alloc(13)), movi, idx1]);
  return Buffer.concat([cc('RIFF'), u32(body.length), body]);
}
