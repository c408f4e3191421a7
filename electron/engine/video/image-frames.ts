/**
 * Image-to-video: a slow Ken Burns pan and zoom over the reference, with a parallax
 * split (the bottom band drifts and zooms a little faster, like a nearer foreground)
 * and a fade from black at the start and to black at the end.
 *
 * The reference is decoded once (sharp, in the worker) to a frame-covering size with
 * a zoom margin and converted to Y/U/V planes; frames are then bilinear fixed-point
 * resamples of those planes, one row transform at a time.
 */
import sharp from 'sharp';
import { lumaOf, smoothstep } from './color.js';
import { writeChroma } from './rgb-i420.js';
import { fadeLevel, type FrameSource } from './frame-source.js';
import { Rng } from '../shared/random.js';
import { tokenize } from './scene-plan.js';
import { fadeFrame, type YuvFrame } from './yuv-frame.js';

/** Decoded size = frame size * MARGIN, so there is always room to pan and zoom. */
const MARGIN = 1.3;

interface SourcePlane {
  data: Uint8Array;
  /** Usable size; data has one extra replicated column and row for the bilinear taps. */
  w: number;
  h: number;
  stride: number;
}

export interface ImageClip {
  prompt: string;
  seed: number;
  fps: number;
  frames: number;
}

interface Motion {
  zoomFrom: number;
  zoomTo: number;
  panX: number;
  panY: number;
  band: number;
  bandShift: number;
}

/** Decode the reference and build the frame source (throws on undecodable input). */
export async function createImageFrameSource(reference: Uint8Array, clip: ImageClip, width: number, height: number): Promise<ImageFrameSource> {
  const sw = Math.ceil(width * MARGIN);
  const sh = Math.ceil(height * MARGIN);
  const { data, info } = await sharp(reference, { failOn: 'none' })
    .rotate()
    .resize(sw, sh, { fit: 'cover', position: 'centre' })
    .flatten({ background: '#000000' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== sw || info.height !== sh || info.channels !== 3) throw new Error(`unexpected decoded reference layout ${info.width}x${info.height}x${info.channels}`);
  return new ImageFrameSource(clip, toPlanes(data, sw, sh), motionFor(clip));
}

function toPlanes(rgb: Uint8Array, w: number, h: number): [SourcePlane, SourcePlane, SourcePlane] {
  const stride = w + 1;
  const y = new Uint8Array(stride * (h + 1));
  for (let r = 0; r < h; r++) {
    let i = r * w * 3;
    const o = r * stride;
    for (let x = 0; x < w; x++, i += 3) y[o + x] = lumaOf(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
    y[o + w] = y[o + w - 1]!;
  }
  y.copyWithin(h * stride, (h - 1) * stride, h * stride);
  // Chroma at half resolution from 2x2 averages, as I420 stores it.
  const cw = w >> 1;
  const ch = h >> 1;
  const cs = cw + 1;
  const u = new Uint8Array(cs * (ch + 1));
  const v = new Uint8Array(cs * (ch + 1));
  writeChroma(rgb, w, cw, ch, u, v, cs);
  for (let r = 0; r < ch; r++) {
    u[r * cs + cw] = u[r * cs + cw - 1]!;
    v[r * cs + cw] = v[r * cs + cw - 1]!;
  }
  u.copyWithin(ch * cs, (ch - 1) * cs, ch * cs);
  v.copyWithin(ch * cs, (ch - 1) * cs, ch * cs);
  return [{ data: y, w, h, stride }, { data: u, w: cw, h: ch, stride: cs }, { data: v, w: cw, h: ch, stride: cs }];
}

/** Motion from the prompt ("zoom out", "pan left", ...) or, failing that, from the seed. */
function motionFor(clip: ImageClip): Motion {
  const rng = new Rng(clip.seed).fork('ken-burns');
  const words = new Set(tokenize(clip.prompt));
  const zoomOut = words.has('out') || words.has('pull') ? true : words.has('in') || words.has('push') ? false : rng.chance(0.35);
  const zMin = 1.04;
  const zMax = rng.range(1.16, 1.24);
  let panX = rng.range(0.5, 1) * rng.sign();
  let panY = rng.range(-0.5, 0.5);
  if (words.has('left')) panX = -1;
  if (words.has('right')) panX = 1;
  if (words.has('up')) panY = -0.8;
  if (words.has('down')) panY = 0.8;
  return { zoomFrom: zoomOut ? zMax : zMin, zoomTo: zoomOut ? zMin : zMax, panX, panY, band: rng.range(0.6, 0.7), bandShift: rng.range(0.025, 0.04) * (panX >= 0 ? 1 : -1) };
}

export class ImageFrameSource implements FrameSource {
  constructor(private readonly clip: ImageClip, private readonly planes: [SourcePlane, SourcePlane, SourcePlane], private readonly motion: Motion) {}

  render(index: number, frame: YuvFrame): void {
    const { clip, motion } = this;
    const time = index / clip.fps;
    const seconds = clip.frames / clip.fps;
    const p = clip.frames > 1 ? index / (clip.frames - 1) : 0;
    const e = p * p * (3 - 2 * p);
    const zoom = motion.zoomFrom + (motion.zoomTo - motion.zoomFrom) * e;
    const [py, pu, pv] = this.planes;
    const base = Math.min(py.w / frame.width, py.h / frame.height);
    const scale = base / zoom;
    // Centre in full-resolution source pixels, panned inside the zoom margin.
    const cx = py.w / 2 + motion.panX * (e - 0.5) * (py.w - frame.width * scale) * 0.9;
    const cy = py.h / 2 + motion.panY * (e - 0.5) * (py.h - frame.height * scale) * 0.9;
    const rows = { scale, cx, cy, e, height: frame.height };
    this.resample(py, frame.y, frame.width, frame.height, 1, rows);
    this.resample(pu, frame.u, frame.cw, frame.ch, 0.5, rows);
    this.resample(pv, frame.v, frame.cw, frame.ch, 0.5, rows);
    const fade = Math.min(0.6, seconds * 0.25);
    fadeFrame(frame, fadeLevel(time, seconds, fade, fade));
  }

  /** Resample one plane; `k` maps full-resolution coordinates to this plane's. */
  private resample(src: SourcePlane, out: Uint8Array, ow: number, oh: number, k: number, view: { scale: number; cx: number; cy: number; e: number; height: number }): void {
    const { motion } = this;
    const data = src.data;
    const stride = src.stride;
    for (let y = 0; y < oh; y++) {
      // Parallax: rows below the band edge zoom in slightly more and slide further.
      const fy = (y + 0.5) / k / view.height;
      const fg = smoothstep(motion.band - 0.05, motion.band + 0.05, fy);
      const s = view.scale / (1 + 0.035 * fg * view.e);
      const shift = fg * motion.bandShift * (view.e - 0.5) * src.w;
      const halfW = (ow / 2) * s;
      let cx = view.cx * k + shift;
      cx = Math.min(src.w - halfW - 0.5, Math.max(halfW + 0.5, cx));
      let sy = view.cy * k + (y + 0.5 - oh / 2) * s - 0.5;
      sy = sy < 0 ? 0 : sy > src.h - 1 ? src.h - 1 : sy;
      const y0 = sy | 0;
      const wy = ((sy - y0) * 256) | 0;
      const r0 = y0 * stride;
      const r1 = r0 + stride;
      let sxf = ((cx - halfW - 0.5 + s * 0.5) * 65536) | 0;
      if (sxf < 0) sxf = 0;
      const step = (s * 65536) | 0;
      let o = y * ow;
      for (let x = 0; x < ow; x++, o++, sxf += step) {
        const xi = sxf >> 16;
        const wx = (sxf >> 8) & 255;
        const a = data[r0 + xi]!;
        const c = data[r1 + xi]!;
        const top = (a << 8) + (data[r0 + xi + 1]! - a) * wx;
        const bottom = (c << 8) + (data[r1 + xi + 1]! - c) * wx;
        out[o] = ((top << 8) + (bottom - top) * wy + 32768) >> 16;
      }
    }
  }
}
