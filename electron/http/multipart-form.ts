// Streaming multipart reader for upload endpoints. Limits are enforced while reading (busboy
// stops a file at the byte cap), file field names and image types are checked per part, and
// nothing unbounded is ever buffered.
import type { FastifyRequest } from 'fastify';
import { GatewayError, invalid } from '../core/errors.js';
import { sniffImage } from '../core/images/image-sniff.js';
import type { ReferenceImage } from '../core/providers/provider.js';
import type { UploadBudget } from './upload-budget.js';
import { unsupportedField } from './validation-errors.js';

export interface FormSpec {
  /** Accepted file field name; its `[]` spelling is the same field. */
  fileField: string;
  textFields: readonly string[];
  /** Hard cap per file while streaming; the model's own limit is checked afterwards. */
  maxFileBytes: number;
  maxFiles: number;
  maxFieldBytes: number;
  /** Shared by every upload: the files' bytes are taken from it while read, given back once read. */
  budget: UploadBudget;
}

export interface ParsedForm {
  fields: Record<string, string>;
  files: ReferenceImage[];
}

const baseName = (field: string): string => (field.endsWith('[]') ? field.slice(0, -2) : field);

export async function readMultipartForm(request: FastifyRequest, spec: FormSpec): Promise<ParsedForm> {
  if (!request.isMultipart()) {
    throw invalid('Unsupported Content-Type; this endpoint takes multipart/form-data.');
  }
  const fields: Record<string, string> = {};
  const files: ReferenceImage[] = [];
  const held = { bytes: 0 };
  // @fastify/multipart refuses a part named after an Object.prototype member (toString, ...)
  // without saying which, and only once the body has ended; busboy asks this of every part's
  // name first, so the refusal can name it.
  let prototypeName: string | null = null;
  const parts = request.parts({
    isPartAFile: (name, contentType, filename) => {
      if (name !== undefined && name in Object.prototype) prototypeName ??= name;
      return contentType === 'application/octet-stream' || filename !== undefined; // busboy's own rule
    },
    limits: {
      // One byte over the cap: a file that reaches it is too large, whatever busboy's timing.
      fileSize: spec.maxFileBytes + 1,
      files: spec.maxFiles + 1,
      fields: spec.textFields.length + 4,
      fieldSize: spec.maxFieldBytes,
      parts: spec.maxFiles + spec.textFields.length + 5,
      headerPairs: 50,
    },
  });
  try {
    for await (const part of parts) {
      const name = part.fieldname;
      if (!name) {
        if (part.type === 'file') part.file.resume();
        throw invalid('A form part has no field name.', null);
      }
      if (part.type === 'file') {
        if (baseName(name) !== spec.fileField) {
          part.file.resume();
          if (spec.textFields.includes(name)) throw invalid(`${name} must be a text field of the form, not a file.`, name);
          throw unsupportedField(name);
        }
        if (files.length >= spec.maxFiles) {
          part.file.resume();
          throw invalid(`Too many files under "${spec.fileField}"; at most ${spec.maxFiles} are accepted.`, spec.fileField);
        }
        const bytes = await readCapped(part.file, spec.maxFileBytes, spec.budget, held);
        if (!bytes) {
          throw new GatewayError(
            'reference_image_too_large',
            `The file "${part.filename}" is larger than ${spec.maxFileBytes} bytes.`,
            name,
          );
        }
        const sniffed = sniffImage(bytes);
        if (!sniffed) throw invalid(`The file "${part.filename}" is not a PNG, JPEG or WebP image.`, name);
        files.push({ field: name, filename: part.filename, mime: sniffed.mime, bytes });
      } else {
        if (baseName(name) === spec.fileField) throw invalid(`${name} must be a file part of the form, not a text field.`, name);
        if (!spec.textFields.includes(name)) throw unsupportedField(name);
        if (name in fields) throw invalid(`The field ${name} is given more than once.`, name);
        if (part.valueTruncated) throw invalid(`The field ${name} is too long.`, name);
        if (typeof part.value !== 'string') throw invalid(`The field ${name} must be text.`, name);
        fields[name] = part.value;
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_PROTO_VIOLATION' && prototypeName !== null) throw unsupportedField(prototypeName);
    throw mapPartError(error);
  } finally {
    // Once read, the files belong to the request's work, which ends in seconds; the bound is for
    // bodies still arriving (a slow upload holds its partial files for as long as it lasts).
    spec.budget.give(held.bytes);
  }
  return { fields, files };
}

/** Reads a file part, keeping at most `cap` bytes (taken from the budget); null when it is larger. */
async function readCapped(
  stream: AsyncIterable<Buffer> & { truncated?: boolean },
  cap: number,
  budget: UploadBudget,
  held: { bytes: number },
): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > cap) continue;
    budget.take(chunk.length);
    held.bytes += chunk.length;
    chunks.push(chunk);
  }
  return total > cap || stream.truncated ? null : Buffer.concat(chunks);
}

function mapPartError(error: unknown): unknown {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT') return invalid('Too many files in the form.', null);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalid('The form has more fields than this endpoint accepts.', null);
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') return invalid('A JSON form field could not be parsed.', null);
  // busboy: truncated or malformed bodies.
  if (error instanceof Error && /multipart|Unexpected end|boundary|Malformed/i.test(error.message)) {
    return invalid('The multipart body is malformed or truncated.', null);
  }
  return error;
}
