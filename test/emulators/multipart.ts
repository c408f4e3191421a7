// multipart/form-data parsing without busboy: Node 20's global (undici) Request already implements
// formData(), so we hand it the raw body and content type and read the entries back.
import type { UploadedFile } from './types.js';

export interface UploadedFileWithBytes extends UploadedFile {
  bytes: Buffer;
}

export interface ParsedForm {
  fields: Record<string, string>;
  files: UploadedFileWithBytes[];
}

export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** Parses a multipart body; throws on a malformed body (the caller answers 400). */
export async function parseMultipart(contentType: string, body: Buffer): Promise<ParsedForm> {
  const form = await new Request('http://emulator.invalid/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    // A copy typed Uint8Array<ArrayBuffer>: DOM lib typings reject Buffer<ArrayBufferLike> here.
    body: new Uint8Array(body),
  }).formData();
  const fields: Record<string, string> = {};
  const files: UploadedFileWithBytes[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      fields[field] = value;
    } else {
      const bytes = Buffer.from(await value.arrayBuffer());
      files.push({ field, name: value.name, type: value.type, size: bytes.length, bytes });
    }
  }
  return { fields, files };
}
