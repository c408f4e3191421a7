// Minimal ISO-BMFF reader for tests: walks the box tree of an MP4 and reads what a player needs
// (brand, track size, codec, duration), plus an ffprobe cross-check (ffprobe is required).
import { execFileSync } from 'node:child_process';
import { requiredTool } from './tools.js';

export interface Box {
  type: string;
  start: number;
  size: number;
  children: Box[];
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf']);

export function parseBoxes(buf: Buffer, start = 0, end = buf.length): Box[] {
  const boxes: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) size = end - offset;
    if (size < header || offset + size > end) throw new Error(`bad box ${type} at ${offset}`);
    const box: Box = { type, start: offset, size, children: [] };
    if (CONTAINERS.has(type)) box.children = parseBoxes(buf, offset + header, offset + size);
    if (type === 'stsd') box.children = parseBoxes(buf, offset + header + 8, offset + size);
    boxes.push(box);
    offset += size;
  }
  return boxes;
}

export function find(boxes: Box[], path: string[]): Box | undefined {
  let level = boxes;
  let found: Box | undefined;
  for (const type of path) {
    found = level.find((b) => b.type === type);
    if (!found) return undefined;
    level = found.children;
  }
  return found;
}

export interface Mp4Info {
  brand: string;
  codec: string;
  width: number;
  height: number;
  durationSeconds: number;
}

export function readMp4(buf: Buffer): Mp4Info {
  const boxes = parseBoxes(buf);
  const ftyp = find(boxes, ['ftyp']);
  if (!ftyp || !find(boxes, ['moov'])) throw new Error('not an MP4: ftyp/moov missing');
  const mvhd = find(boxes, ['moov', 'mvhd'])!;
  const version = buf[mvhd.start + 8]!;
  const timescale = version === 1 ? buf.readUInt32BE(mvhd.start + 28) : buf.readUInt32BE(mvhd.start + 20);
  const duration = version === 1 ? Number(buf.readBigUInt64BE(mvhd.start + 32)) : buf.readUInt32BE(mvhd.start + 24);
  const entry = find(boxes, ['moov', 'trak', 'mdia', 'minf', 'stbl', 'stsd'])?.children[0];
  if (!entry) throw new Error('no sample entry');
  // VisualSampleEntry: 8 header + 6 reserved + 2 index + 16 predefined, then width and height.
  const width = buf.readUInt16BE(entry.start + 32);
  const height = buf.readUInt16BE(entry.start + 34);
  return {
    brand: buf.toString('latin1', ftyp.start + 8, ftyp.start + 12),
    codec: entry.type,
    width,
    height,
    durationSeconds: duration / timescale,
  };
}

/** Whether ffprobe is installed (for a check's own message; ffprobe() itself fails clearly without it). */
export const hasFfprobe = (() => {
  try {
    requiredTool('ffprobe');
    return true;
  } catch {
    return false;
  }
})();

/** ffprobe's reading of an MP4; throws "ffprobe is required: apt-get install ffmpeg" without it. */
export function ffprobe(path: string): { codec: string; width: number; height: number; duration: number; frames: number } {
  const out = execFileSync(requiredTool('ffprobe'), ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries',
    'stream=codec_name,width,height,nb_read_frames:format=duration', '-of', 'json', path], { encoding: 'utf8' });
  const json = JSON.parse(out) as { streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[]; format: { duration: string } };
  const stream = json.streams[0]!;
  return { codec: stream.codec_name, width: stream.width, height: stream.height, duration: Number(json.format.duration), frames: Number(stream.nb_read_frames) };
}
