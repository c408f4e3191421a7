// One parser for both request shapes of POST /videos (older: seconds/size; newer: request_type,
// duration/resolution, client_request_id), from JSON or multipart alike, and the seven
// validation rules against the live model record.
import type { ModelRecord } from '../../../shared/api-types.js';
import { countOr, integerList, stringList } from '../catalog/capability-read.js';
import { isVideoModel, supportedRequestTypes } from '../catalog/model-capabilities.js';
import type { CatalogEntry, CatalogService } from '../catalog/catalog-service.js';
import { GatewayError, invalid } from '../errors.js';
import { checkPromptText, SELECTORS } from '../images/image-request.js';
import type { ReferenceImage } from '../providers/provider.js';

export const REQUEST_TYPES = ['text-to-video', 'image-to-video'] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

export const VIDEO_FIELDS = ['model', 'prompt', 'seconds', 'size', 'request_type', 'duration', 'resolution', 'client_request_id'] as const;

/** How a door names its reference-image field, so the rules' errors name the field its client sends. */
export interface ReferenceField {
  /** The `param` of errors about the reference images. */
  param: string;
  /** How to send one, completing "send it ...". */
  howToSend: string;
}

/** /v1's field: multipart files under input_reference (input_reference[] is the same field). */
export const MULTIPART_REFERENCE: ReferenceField = { param: 'input_reference', howToSend: 'as a multipart file under input_reference' };

export interface VideoCreateInput {
  fields: Record<string, unknown>;
  references: ReferenceImage[];
  transport: 'json' | 'multipart';
  /** The door's reference field; /v1's multipart input_reference when left out. */
  referenceField?: ReferenceField;
}

export interface VideoCreateRequest {
  model: string;
  prompt: string;
  seconds: number;
  size: string | null;
  /** Which spelling the client used, so errors name the field it sent. */
  secondsParam: 'duration' | 'seconds';
  sizeParam: 'resolution' | 'size';
  requestType: RequestType;
  clientRequestId: string | null;
  references: ReferenceImage[];
  referenceField: ReferenceField;
}

function text(fields: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) {
    if (required) throw invalid(`Missing required field ${name}.`, name);
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(`${name} must be a string.`, name);
  return value;
}

/** Seconds arrive as 8 or "8"; anything else (" 8" too, as sizes are not trimmed) is refused with the field's name. */
function wholeSeconds(fields: Record<string, unknown>, name: string): number | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[1-9]\d{0,4}$/.test(value)) return Number(value);
  throw invalid(`${name} must be a whole number of seconds, such as 4 or "4".`, name);
}

export function parseVideoRequest(input: VideoCreateInput): VideoCreateRequest {
  const { fields, references } = input;
  if ('input_reference' in fields || 'input_reference[]' in fields) {
    // Rule 7: JSON carries no images.
    throw invalid('Send reference images as multipart/form-data files under input_reference, not inside a JSON body.', 'input_reference');
  }
  for (const name of Object.keys(fields)) {
    if (!(VIDEO_FIELDS as readonly string[]).includes(name)) throw invalid(`Unsupported field ${name}.`, name);
  }
  const model = text(fields, 'model', true) ?? '';
  const prompt = text(fields, 'prompt', true) ?? '';

  const duration = wholeSeconds(fields, 'duration');
  const secondsAlias = wholeSeconds(fields, 'seconds');
  if (duration !== undefined && secondsAlias !== undefined && duration !== secondsAlias) {
    throw invalid(`duration (${duration}) and seconds (${secondsAlias}) disagree; send one of them.`, 'duration');
  }
  const seconds = duration ?? secondsAlias;
  if (seconds === undefined) throw invalid('Missing required field seconds (or duration).', 'seconds');

  const resolution = text(fields, 'resolution', false);
  const sizeAlias = text(fields, 'size', false);
  if (resolution !== undefined && sizeAlias !== undefined && resolution !== sizeAlias) {
    throw invalid(`resolution (${resolution}) and size (${sizeAlias}) disagree; send one of them.`, 'resolution');
  }
  const size = resolution ?? sizeAlias ?? null;

  const requestTypeText = text(fields, 'request_type', false);
  if (requestTypeText !== undefined && !(REQUEST_TYPES as readonly string[]).includes(requestTypeText)) {
    throw invalid(`request_type must be text-to-video or image-to-video.`, 'request_type');
  }
  const requestType = (requestTypeText as RequestType | undefined) ?? (references.length > 0 ? 'image-to-video' : 'text-to-video');

  const clientRequestId = text(fields, 'client_request_id', false) ?? null;
  if (clientRequestId !== null && (clientRequestId.length === 0 || clientRequestId.length > 200)) {
    throw invalid('client_request_id must be 1 to 200 characters.', 'client_request_id');
  }
  checkPromptText(prompt);
  return {
    model,
    prompt,
    seconds,
    size,
    secondsParam: duration !== undefined ? 'duration' : 'seconds',
    sizeParam: resolution !== undefined ? 'resolution' : 'size',
    requestType,
    clientRequestId,
    references,
    referenceField: input.referenceField ?? MULTIPART_REFERENCE,
  };
}

export async function resolveVideoModel(catalog: CatalogService, model: string): Promise<CatalogEntry> {
  if (SELECTORS.includes(model)) {
    throw invalid(`Video creation needs a concrete video model ID; the selector "${model}" is not accepted.`, 'model');
  }
  const entry = await catalog.find(model);
  if (!entry) throw invalid(`The model "${model}" does not exist. GET /v1/models lists the available models.`, 'model');
  if (!isVideoModel(entry.record)) throw invalid(`The model "${model}" is not a video model.`, 'model');
  return entry;
}

/** Rule 3: the model's route supports the request type. Creation and quotes both apply it. */
export function checkRequestType(record: ModelRecord, requestType: string): void {
  if (!supportedRequestTypes(record).includes(requestType)) {
    throw invalid(`${record.id} does not support ${requestType}.`, 'request_type');
  }
}

/**
 * Rules 1-6 against the live record (rule 7 is checked by the transport and the parser). Rule 6
 * runs before rule 3, so a reference-only model called without a file hears what it needs.
 */
export function checkVideoRules(request: VideoCreateRequest, record: ModelRecord): void {
  const caps = record.capabilities;
  const reference = request.referenceField;
  const seconds = integerList(caps.supported_seconds);
  if (!seconds.includes(request.seconds)) {
    throw invalid(`${request.seconds} seconds is not supported by ${record.id}; supported: ${seconds.join(', ')}.`, request.secondsParam);
  }
  const sizes = stringList(caps.supported_sizes);
  if (request.size !== null && !sizes.includes(request.size)) {
    throw invalid(`${request.sizeParam} ${request.size} is not supported by ${record.id}; supported: ${sizes.join(', ')}.`, request.sizeParam);
  }
  if (caps.requires_reference_image === true && request.references.length === 0) {
    throw invalid(`${record.id} needs a reference image: send it ${reference.howToSend}.`, reference.param);
  }
  const max = countOr(caps.max_reference_images, 0);
  if (request.references.length > max) {
    throw invalid(`${record.id} accepts at most ${max} reference image${max === 1 ? '' : 's'}.`, reference.param);
  }
  const maxBytes = countOr(caps.max_reference_image_bytes, undefined);
  for (const image of request.references) {
    if (maxBytes !== undefined && image.bytes.length > maxBytes) {
      throw new GatewayError(
        'reference_image_too_large',
        `The reference image "${image.filename}" is ${image.bytes.length} bytes; ${record.id} accepts at most ${maxBytes}.`,
        image.field,
      );
    }
  }
  checkRequestType(record, request.requestType);
  if (request.requestType === 'image-to-video' && request.references.length === 0) {
    throw invalid(`image-to-video needs a reference image: send it ${reference.howToSend}.`, reference.param);
  }
  if (request.requestType === 'text-to-video' && request.references.length > 0) {
    throw invalid('text-to-video takes no reference image; use request_type image-to-video.', reference.param);
  }
}

/** The output size: the requested one, else the model's first listed size. */
export function effectiveSize(request: VideoCreateRequest, record: ModelRecord): string {
  return request.size ?? stringList(record.capabilities.supported_sizes)[0] ?? '480p';
}
