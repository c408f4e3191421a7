// An MJPEG AVI writer, laid out byte for byte like stable-diffusion.cpp's
// create_mjpg_avi_from_sd_images_to_vector (examples/common/media_io.cpp, video stream only):
// RIFF 'AVI ' { LIST 'hdrl' { avih (56 bytes: 1e6 / fps us per frame, flags 0x110 = HASINDEX |
// ISINTERLEAVED, total frames, 1 stream, suggested buffer w*h*3, width, height), LIST 'strl'
// { strh (vids, MJPG, scale 1, rate fps, length = frames, quality -1), strf (BITMAPINFOHEADER,
// 24 bpp, compression MJPG, image size w*h*3) } }, LIST 'movi' { '00dc' chunk per JPEG frame,
// padded to even size }, idx1 (16 bytes per frame: '00dc', AVIIF_KEYFRAME 0x10, offset, size) }.
// As in the source, idx1 offsets are absolute file offsets of each chunk header (ffmpeg's AVI
// demuxer accepts both absolute and movi-relative offsets).

export interface MjpegAviOptions {
  width: number;
  height: number;
  /** Frames per second (an integer > 0, like sd.cpp's fps). */
  fps: number;
}

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;

  fourcc(code: string): void {
    if (code.length !== 4) throw new Error(`fourcc '${code}'`);
    this.push(Buffer.from(code, 'latin1'));
  }

  u32(value: number): number {
    const at = this.length;
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value >>> 0, 0);
    this.push(b);
    return at;
  }

  u16(value: number): void {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(value & 0xffff, 0);
    this.push(b);
  }

  push(bytes: Buffer): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  finish(patches: [at: number, value: number][]): Buffer {
    const out = Buffer.concat(this.chunks, this.length);
    for (const [at, value] of patches) out.writeUInt32LE(value >>> 0, at);
    return out;
  }
}

/** An AVI holding `frames` (each a complete JPEG) as an MJPEG video stream. */
export function writeMjpegAvi(frames: Buffer[], { width, height, fps }: MjpegAviOptions): Buffer {
  if (frames.length === 0) throw new Error('no frames');
  if (!Number.isInteger(fps) || fps <= 0) throw new Error(`bad fps ${fps}`);
  for (const frame of frames) if (frame[0] !== 0xff || frame[1] !== 0xd8) throw new Error('frames must be JPEG');
  const w = new ByteWriter();
  const frameBytes = width * height * 3;

  w.fourcc('RIFF');
  const riffSize = w.u32(0);
  w.fourcc('AVI ');

  w.fourcc('LIST');
  w.u32(4 + 8 + 56 + 8 + 4 + 8 + 56 + 8 + 40);
  w.fourcc('hdrl');

  w.fourcc('avih');
  w.u32(56);
  w.u32(Math.trunc(1_000_000 / fps)); // dwMicroSecPerFrame
  w.u32(0); // dwMaxBytesPerSec
  w.u32(0); // dwPaddingGranularity
  w.u32(0x110); // dwFlags: AVIF_HASINDEX | AVIF_ISINTERLEAVED
  w.u32(frames.length); // dwTotalFrames
  w.u32(0); // dwInitialFrames
  w.u32(1); // dwStreams
  w.u32(frameBytes); // dwSuggestedBufferSize
  w.u32(width);
  w.u32(height);
  for (let i = 0; i < 4; i++) w.u32(0); // dwReserved[4]

  w.fourcc('LIST');
  w.u32(4 + 8 + 56 + 8 + 40);
  w.fourcc('strl');

  w.fourcc('strh');
  w.u32(56);
  w.fourcc('vids'); // fccType
  w.fourcc('MJPG'); // fccHandler
  w.u32(0); // dwFlags
  w.u16(0); // wPriority
  w.u16(0); // wLanguage
  w.u32(0); // dwInitialFrames
  w.u32(1); // dwScale
  w.u32(fps); // dwRate
  w.u32(0); // dwStart
  w.u32(frames.length); // dwLength
  w.u32(frameBytes); // dwSuggestedBufferSize
  w.u32(0xffffffff); // dwQuality (-1)
  w.u32(0); // dwSampleSize
  for (let i = 0; i < 4; i++) w.u16(0); // rcFrame

  w.fourcc('strf');
  w.u32(40);
  w.u32(40); // biSize
  w.u32(width);
  w.u32(height);
  w.u16(1); // biPlanes
  w.u16(24); // biBitCount
  w.fourcc('MJPG'); // biCompression
  w.u32(frameBytes); // biSizeImage
  for (let i = 0; i < 4; i++) w.u32(0); // pels per metre x/y, colours used/important

  w.fourcc('LIST');
  const moviSize = w.u32(0);
  w.fourcc('movi');
  const index: { offset: number; size: number }[] = [];
  for (const jpeg of frames) {
    index.push({ offset: w.length, size: jpeg.length });
    w.fourcc('00dc');
    w.u32(jpeg.length);
    w.push(jpeg);
    if (jpeg.length % 2) w.push(Buffer.alloc(1));
  }
  const moviLength = w.length - moviSize - 4;

  w.fourcc('idx1');
  w.u32(index.length * 16);
  for (const entry of index) {
    w.fourcc('00dc');
    w.u32(0x10); // AVIIF_KEYFRAME
    w.u32(entry.offset);
    w.u32(entry.size);
  }
  return w.finish([
    [moviSize, moviLength],
    [riffSize, w.length - riffSize - 4],
  ]);
}
