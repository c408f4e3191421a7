/**
 * Post-process the encoder's MP4 (runs in the worker):
 *  - add a sync-sample table (stss). The encoder omits it, which per ISO-BMFF means
 *    "every frame is a keyframe": players then seek onto P-frames and show garbage or
 *    nothing. Keyframes are found by scanning each sample for IDR NAL units.
 *  - move moov in front of mdat ("faststart"), so a <video> over HTTP can start
 *    playing before the whole file has arrived. Chunk offsets are shifted to match.
 *  - zero the creation/modification timestamps (wall clock at encode time), so the
 *    same input renders to the same bytes.
 * Input that does not look like a single-track AVC file is returned unchanged.
 */

interface Box {
  type: string;
  start: number;
  size: number;
  header: number;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = (v >>> 24) & 255;
  b[at + 1] = (v >>> 16) & 255;
  b[at + 2] = (v >>> 8) & 255;
  b[at + 3] = v & 255;
}

function boxes(b: Uint8Array, start: number, end: number): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = u32(b, at);
    let header = 8;
    if (size === 1) {
      size = u32(b, at + 8) * 4294967296 + u32(b, at + 12);
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) throw new Error('malformed MP4 box');
    out.push({ type: String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!), start: at, size, header });
    at += size;
  }
  return out;
}

function child(b: Uint8Array, parent: Box, type: string): Box | undefined {
  return boxes(b, parent.start + parent.header, parent.start + parent.size).find((x) => x.type === type);
}

/** Sample numbers (1-based) whose data contains an IDR slice. */
function syncSamples(b: Uint8Array, stbl: Box): { sync: number[]; count: number } | null {
  const stsz = child(b, stbl, 'stsz');
  const stsc = child(b, stbl, 'stsc');
  const stco = child(b, stbl, 'stco') ?? child(b, stbl, 'co64');
  const stsd = child(b, stbl, 'stsd');
  if (stsz === undefined || stsc === undefined || stco === undefined || stsd === undefined) return null;
  const avcc = findType(b, stsd.start, stsd.start + stsd.size, 'avcC');
  if (avcc < 0) return null;
  const lengthSize = (b[avcc + 12]! & 3) + 1; // avcC: version, profile, compat, level, lengthSizeMinusOne
  const fixed = u32(b, stsz.start + 12);
  const count = u32(b, stsz.start + 16);
  const sizeOf = (i: number): number => (fixed !== 0 ? fixed : u32(b, stsz.start + 20 + 4 * i));
  const wide = stco.type === 'co64';
  const chunks = u32(b, stco.start + 12);
  const chunkOffset = (i: number): number => (wide ? u32(b, stco.start + 16 + 8 * i) * 4294967296 + u32(b, stco.start + 20 + 8 * i) : u32(b, stco.start + 16 + 4 * i));
  const runs = u32(b, stsc.start + 12);
  const sync: number[] = [];
  let sample = 0;
  for (let r = 0; r < runs; r++) {
    const first = u32(b, stsc.start + 16 + 12 * r) - 1;
    const perChunk = u32(b, stsc.start + 20 + 12 * r);
    const last = r + 1 < runs ? u32(b, stsc.start + 16 + 12 * (r + 1)) - 1 : chunks;
    for (let c = first; c < last; c++) {
      let at = chunkOffset(c);
      for (let k = 0; k < perChunk && sample < count; k++, sample++) {
        const size = sizeOf(sample);
        if (isIdr(b, at, at + size, lengthSize)) sync.push(sample + 1);
        at += size;
      }
    }
  }
  return sample === count ? { sync, count } : null;
}

function isIdr(b: Uint8Array, start: number, end: number, lengthSize: number): boolean {
  let at = start;
  while (at + lengthSize < end) {
    let len = 0;
    for (let i = 0; i < lengthSize; i++) len = len * 256 + b[at + i]!;
    if ((b[at + lengthSize]! & 31) === 5) return true;
    at += lengthSize + len;
  }
  return false;
}

function findType(b: Uint8Array, start: number, end: number, type: string): number {
  const t = [type.charCodeAt(0), type.charCodeAt(1), type.charCodeAt(2), type.charCodeAt(3)];
  for (let i = start + 4; i + 4 <= end; i++) {
    if (b[i] === t[0] && b[i + 1] === t[1] && b[i + 2] === t[2] && b[i + 3] === t[3]) return i - 4;
  }
  return -1;
}

function stssBox(sync: number[]): Uint8Array {
  const out = new Uint8Array(16 + 4 * sync.length);
  put32(out, 0, out.length);
  out.set([0x73, 0x74, 0x73, 0x73], 4);
  put32(out, 12, sync.length);
  sync.forEach((n, i) => put32(out, 16 + 4 * i, n));
  return out;
}

/**
 * Rebuild a box: containers on the way to stbl are re-serialised with new sizes, stbl
 * gets the extra stss, chunk offsets are remapped, anything else is copied verbatim.
 */
function rebuild(b: Uint8Array, box: Box, extra: Map<number, Uint8Array>, remap: (offset: number) => number): Uint8Array {
  if (!CONTAINERS.has(box.type)) {
    const copy = b.slice(box.start, box.start + box.size);
    if (box.type === 'mvhd' || box.type === 'tkhd' || box.type === 'mdhd') {
      // Full box: version byte at 8; times follow flags as 32-bit (v0) or 64-bit (v1) pairs.
      copy.fill(0, 12, copy[8] === 1 ? 28 : 20);
    } else if (box.type === 'stco') {
      const n = u32(copy, 12);
      for (let i = 0; i < n; i++) put32(copy, 16 + 4 * i, remap(u32(copy, 16 + 4 * i)));
    } else if (box.type === 'co64') {
      const n = u32(copy, 12);
      for (let i = 0; i < n; i++) {
        const v = remap(u32(copy, 16 + 8 * i) * 4294967296 + u32(copy, 20 + 8 * i));
        put32(copy, 16 + 8 * i, Math.floor(v / 4294967296));
        put32(copy, 20 + 8 * i, v >>> 0);
      }
    }
    return copy;
  }
  const parts = boxes(b, box.start + box.header, box.start + box.size).map((c) => rebuild(b, c, extra, remap));
  const added = extra.get(box.start);
  if (added !== undefined) parts.push(added);
  const size = 8 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  put32(out, 0, size);
  out.set(b.subarray(box.start + 4, box.start + 8), 4);
  let at = 8;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function finalizeMp4(input: Uint8Array): Uint8Array {
  const top = boxes(input, 0, input.length);
  const ftyp = top.find((x) => x.type === 'ftyp');
  const moov = top.find((x) => x.type === 'moov');
  if (ftyp === undefined || moov === undefined || !top.some((x) => x.type === 'mdat')) return input;
  // stss for every track that lacks one and is not all-keyframes.
  const extra = new Map<number, Uint8Array>();
  for (const trak of boxes(input, moov.start + moov.header, moov.start + moov.size).filter((x) => x.type === 'trak')) {
    const mdia = child(input, trak, 'mdia');
    const minf = mdia && child(input, mdia, 'minf');
    const stbl = minf && child(input, minf, 'stbl');
    if (stbl === undefined || child(input, stbl, 'stss') !== undefined) continue;
    const found = syncSamples(input, stbl);
    if (found !== null && found.sync.length > 0 && found.sync.length < found.count) extra.set(stbl.start, stssBox(found.sync));
  }
  // New layout: ftyp, moov, then every other top-level box in its original order.
  const grown = [...extra.values()].reduce((n, x) => n + x.length, 0);
  const rest = top.filter((x) => x !== ftyp && x !== moov);
  const newStart = new Map<Box, number>();
  let at = ftyp.size + moov.size + grown;
  for (const box of rest) {
    newStart.set(box, at);
    at += box.size;
  }
  const remap = (offset: number): number => {
    const owner = rest.find((x) => offset >= x.start && offset < x.start + x.size);
    return owner === undefined ? offset : (newStart.get(owner) ?? owner.start) + (offset - owner.start);
  };
  const newMoov = rebuild(input, moov, extra, remap);
  if (newMoov.length !== moov.size + grown) return input;
  const out = new Uint8Array(at);
  out.set(input.subarray(ftyp.start, ftyp.start + ftyp.size), 0);
  out.set(newMoov, ftyp.size);
  for (const box of rest) out.set(input.subarray(box.start, box.start + box.size), newStart.get(box) ?? 0);
  return out;
}
