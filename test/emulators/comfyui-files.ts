// The ComfyUI emulator's input/output/temp directories (in memory), and the routes that touch
// them, after server.py (image_upload for POST /upload/image: ' (1)' suffixes unless overwrite,
// an identical file under the same name reused; view_image for GET /view: annotated names,
// '..' -> 400, subfolder escape -> 403, unknown -> 404, Content-Disposition, preview=/channel=)
// and folder_paths.py (annotated_filepath, get_save_image_path's counter).
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import sharp from 'sharp';
import { type Reply, json as jsonReply } from './http-kit.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { contentTypeOf } from './comfyui-media.js';

/** web.json_response: application/json; charset=utf-8. */
const json = (status: number, value: unknown): Reply => jsonReply(status, value, { 'content-type': 'application/json; charset=utf-8' });

export type FolderType = 'input' | 'output' | 'temp';

export interface StoredFile {
  type: FolderType;
  /** Path inside its folder, '/'-separated ('video/ComfyUI_00001_.mp4'). */
  path: string;
  bytes: Buffer;
}

export interface UploadRecord {
  name: string;
  subfolder: string;
  type: string;
  bytes: Buffer;
  /** Whether the bytes were written (false when an identical file already had that name). */
  written: boolean;
}

/** os.path.normpath of `dir/name` inside a folder; undefined when it leaves the folder. */
export function insideFolder(...parts: string[]): string | undefined {
  const joined = parts.filter((p) => p !== '').join('/');
  if (joined.startsWith('/')) return undefined;
  const normal = posix.normalize(joined || '.');
  if (normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '.' ? '' : normal.replace(/\/$/, '');
}

export class FileStore {
  private readonly files = new Map<string, StoredFile>();

  constructor(readonly basePath: string) {}

  private key = (type: FolderType, path: string) => `${type}:${path}`;

  put(type: FolderType, path: string, bytes: Buffer): void {
    this.files.set(this.key(type, path), { type, path, bytes });
  }

  get(type: FolderType, path: string): StoredFile | undefined {
    return this.files.get(this.key(type, path));
  }

  /** os.listdir of a directory: the files directly in it. */
  list(type: FolderType, dir: string): string[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    const names: string[] = [];
    for (const file of this.files.values()) {
      if (file.type !== type || !file.path.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      if (!rest.includes('/')) names.push(rest);
    }
    return names;
  }

  /** The absolute path the real server would report (VHS's fullpath). */
  fullPath(type: FolderType, path: string): string {
    return `${this.basePath}/${type}/${path}`;
  }

  /** folder_paths.annotated_filepath + exists: 'a.png', 'sub/a.png', 'a.png [output]'. */
  resolveAnnotated(name: string): StoredFile | undefined {
    const match = /^(.*) \[(input|output|temp)\]$/.exec(name);
    const [type, rel] = match ? [match[2] as FolderType, match[1]!] : ['input' as FolderType, name];
    const path = insideFolder(rel);
    return path === undefined ? undefined : this.get(type, path);
  }

  /** folder_paths.get_save_image_path's counter: 1 + the highest N of `${filename}_N_...` in the directory. */
  nextCounter(type: FolderType, dir: string, filename: string): number {
    let best = 0;
    for (const name of this.list(type, dir)) {
      const prefix = name.slice(0, filename.length + 1);
      if (prefix.slice(0, -1) !== filename || !prefix.endsWith('_')) continue;
      const head = name.slice(filename.length + 1).split('_')[0] ?? '';
      best = Math.max(best, /^\s*[+-]?\d+\s*$/.test(head) ? Number(head) : 0);
    }
    return best + 1;
  }

  /** VideoHelperSuite's counter: 1 + the highest N of files matching `${filename}_(\d+)\D*\..+` (any case). */
  vhsCounter(type: FolderType, dir: string, filename: string): number {
    const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const matcher = new RegExp(`^${escaped}_(\\d+)\\D*\\..+$`, 'i');
    let best = 0;
    for (const name of this.list(type, dir)) {
      const match = matcher.exec(name);
      if (match) best = Math.max(best, Number(match[1]));
    }
    return best + 1;
  }

  clearTemp(): void {
    for (const [key, file] of this.files) if (file.type === 'temp') this.files.delete(key);
  }
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST /upload/image. */
export async function uploadImage(store: FileStore, contentType: string | undefined, body: Buffer, uploads: UploadRecord[]): Promise<Reply> {
  if (!isMultipart(contentType)) return empty(400);
  let form;
  try {
    form = await parseMultipart(contentType!, body);
  } catch {
    return empty(400);
  }
  const image = form.files.find((file) => file.field === 'image');
  const type = form.fields.type ?? 'input';
  if (!image) return empty(400);
  if (!['input', 'temp', 'output'].includes(type)) return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from('500 Internal Server Error\n\nServer got itself in trouble') };
  if (!image.name) return empty(400);
  const subfolder = form.fields.subfolder ?? '';
  const dir = insideFolder(subfolder);
  let path = dir === undefined ? undefined : insideFolder(dir, image.name);
  if (dir === undefined || path === undefined || path === '') return empty(400);
  const overwrite = form.fields.overwrite === 'true' || form.fields.overwrite === '1';
  let filename = image.name;
  let duplicate = false;
  if (!overwrite) {
    const dot = image.name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [image.name.slice(0, dot), image.name.slice(dot)] : [image.name, ''];
    for (let i = 1; store.get(type as FolderType, path); i++) {
      if (sha(store.get(type as FolderType, path)!.bytes) === sha(image.bytes)) {
        duplicate = true;
        break;
      }
      filename = `${stem} (${i})${ext}`;
      path = insideFolder(dir, filename)!;
    }
  }
  if (!duplicate) store.put(type as FolderType, path, image.bytes);
  uploads.push({ name: filename, subfolder, type, bytes: image.bytes, written: !duplicate });
  return json(200, { name: filename, subfolder, type });
}

function empty(status: number): Reply {
  return { status, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(0) };
}

/** GET /view?filename=&subfolder=&type=[&preview=webp;90][&channel=rgb|a], with single Range support. */
export async function viewFile(store: FileStore, query: URLSearchParams, range: string | undefined): Promise<Reply> {
  const raw = query.get('filename');
  if (raw === null) return empty(404);
  const match = /^(.*) \[(input|output|temp)\]$/.exec(raw);
  const name = match ? match[1]! : raw;
  if (!name) return empty(400);
  if (name.startsWith('/') || name.includes('..')) return empty(400);
  const type = (match?.[2] ?? query.get('type') ?? 'output') as FolderType;
  if (!['input', 'output', 'temp'].includes(type)) return empty(400);
  let dir = '';
  if (query.has('subfolder')) {
    const inside = insideFolder(query.get('subfolder')!);
    if (inside === undefined) return empty(403);
    dir = inside;
  }
  const filename = posix.basename(name);
  const file = store.get(type, insideFolder(dir, filename) ?? filename);
  if (!file) return empty(404);
  const disposition = { 'content-disposition': `filename="${filename}"` };
  const preview = query.get('preview');
  const channel = query.get('channel') ?? 'rgba';
  if (preview !== null) {
    const [format, ...rest] = preview.split(';');
    const fmt = format === 'jpeg' && !channel.includes('a') ? 'jpeg' : 'webp';
    const quality = /^\d+$/.test(rest.at(-1) ?? '') ? Number(rest.at(-1)) : 90;
    const image = fmt === 'jpeg' || channel === 'rgb' ? sharp(file.bytes).removeAlpha() : sharp(file.bytes);
    const bytes = await (fmt === 'jpeg' ? image.jpeg({ quality }) : image.webp({ quality })).toBuffer();
    return { status: 200, headers: { 'content-type': `image/${fmt}`, ...disposition }, body: bytes };
  }
  if (channel === 'rgb') return { status: 200, headers: { 'content-type': 'image/png', ...disposition }, body: await sharp(file.bytes).removeAlpha().png().toBuffer() };
  if (channel === 'a') {
    const { width, height } = await sharp(file.bytes).metadata();
    const alpha = await sharp(file.bytes).ensureAlpha().extractChannel(3).raw().toBuffer();
    const rgba = Buffer.alloc(alpha.length * 4);
    alpha.forEach((a, i) => (rgba[i * 4 + 3] = a));
    return { status: 200, headers: { 'content-type': 'image/png', ...disposition }, body: await sharp(rgba, { raw: { width: width!, height: height!, channels: 4 } }).png().toBuffer() };
  }
  let contentType = contentTypeOf(filename);
  if (['text/html', 'text/html-sandboxed', 'application/xhtml+xml', 'text/javascript', 'text/css'].includes(contentType)) contentType = 'application/octet-stream';
  const headers = { 'content-type': contentType, 'accept-ranges': 'bytes', ...disposition };
  const wanted = range && /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (wanted && (wanted[1] || wanted[2])) {
    const size = file.bytes.length;
    const start = wanted[1] ? Number(wanted[1]) : Math.max(0, size - Number(wanted[2]));
    const end = wanted[1] && wanted[2] ? Math.min(size - 1, Number(wanted[2])) : size - 1;
    if (start >= size || start > end) return { status: 416, headers: { 'content-range': `bytes */${size}` }, body: Buffer.alloc(0) };
    return { status: 206, headers: { ...headers, 'content-range': `bytes ${start}-${end}/${size}` }, body: file.bytes.subarray(start, end + 1) };
  }
  return { status: 200, headers, body: file.bytes };
}
