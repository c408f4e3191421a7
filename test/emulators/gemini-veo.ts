// Veo in the Gemini API emulator: POST /v1beta/models/{model}:predictLongRunning read as the API
// reads the body the SDK's generateVideosParametersToMldev builds ({instances: [{prompt, image:
// {bytesBase64Encoded, mimeType}, lastFrame, referenceImages: [{image, referenceType}]}],
// parameters: {aspectRatio, durationSeconds, resolution, personGeneration, negativePrompt,
// sampleCount, enhancePrompt}}; seed, fps and generateAudio are Vertex-only there), answered with
// an Operation {name: "models/{model}/operations/{id}"}. GET /v1beta/{name} answers it until
// done, then with response.generateVideoResponse.generatedSamples[0].video.uri, a file of the API
// (files/{id}:download?alt=media) that needs the key and redirects to storage; or with error
// {code, message}; or, filtered, with raiMediaFilteredCount and no sample. The API has no cancel.
import { randomBytes } from 'node:crypto';
import type { Reply } from './http-kit.js';
import { badRequest, type EmulatedModel, unknownName } from './gemini-errors.js';
import { Gate } from './restartable-server.js';

const TOP_LEVEL = ['instances', 'parameters'];
const INSTANCE = ['prompt', 'image', 'lastFrame', 'referenceImages', 'video'];
const PARAMETERS = ['aspectRatio', 'durationSeconds', 'resolution', 'personGeneration', 'negativePrompt', 'sampleCount', 'enhancePrompt'];
const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/webp'];

export type VeoOutcome = 'video' | 'error' | 'filtered' | 'empty';

export class VeoOperation {
  readonly id = randomBytes(8).toString('hex');
  readonly name: string;
  readonly fileId = randomBytes(6).toString('hex');
  /** Polls answered so far. */
  polls = 0;
  done = false;
  /** The file was removed (expired) at the API. */
  expired = false;

  constructor(
    readonly model: string,
    readonly body: Record<string, unknown>,
    /** What it ends with. */
    public outcome: VeoOutcome,
    /** Open: it ends at its first poll; else when the gate opens. */
    readonly gate: Gate | null,
  ) {
    this.name = `models/${model}/operations/${this.id}`;
  }

  get instance(): Record<string, unknown> {
    return (this.body.instances as Record<string, unknown>[])[0]!;
  }

  get parameters(): Record<string, unknown> {
    return (this.body.parameters as Record<string, unknown> | undefined) ?? {};
  }

  /** The video's frame size: its aspect ratio at its resolution (720p unless 1080p was asked). */
  get size(): { width: number; height: number } {
    const lines = this.parameters.resolution === '1080p' ? 1080 : 720;
    const long = Math.round((lines * 16) / 9);
    return this.parameters.aspectRatio === '9:16' ? { width: lines, height: long } : { width: long, height: lines };
  }

  get seconds(): number {
    return typeof this.parameters.durationSeconds === 'number' ? this.parameters.durationSeconds : 8;
  }

  /** The operation as GET answers it now. */
  view(origin: string): Record<string, unknown> {
    this.polls += 1;
    if (!this.done && (this.gate === null || this.gate.isOpen)) this.done = true;
    if (!this.done) return { name: this.name };
    if (this.outcome === 'error') return { name: this.name, done: true, error: { code: 13, message: 'Video generation failed due to an internal error. Please try again later.' } };
    const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
    if (this.outcome === 'filtered') {
      return { name: this.name, done: true, response: { '@type': type, generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['The video could not be generated because it might violate our policies.'] } } };
    }
    if (this.outcome === 'empty') return { name: this.name, done: true, response: { '@type': type, generateVideoResponse: {} } };
    return { name: this.name, done: true, response: { '@type': type, generateVideoResponse: { generatedSamples: [{ video: { uri: `${origin}/v1beta/files/${this.fileId}:download?alt=media` } }] } } };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a predictLongRunning body; a 400 for what the API would refuse, else null. */
export function checkVeoBody(model: EmulatedModel, body: Record<string, unknown>): Reply | null {
  const veo = model.veo!;
  for (const key of Object.keys(body)) if (!TOP_LEVEL.includes(key)) return unknownName(key, '');
  if (!Array.isArray(body.instances) || body.instances.length !== 1 || !isObject(body.instances[0])) return badRequest('* instances: exactly one instance is required.');
  const instance = body.instances[0];
  for (const key of Object.keys(instance)) if (!INSTANCE.includes(key)) return unknownName(key, 'instances[0]');
  if (typeof instance.prompt !== 'string' || instance.prompt.trim() === '') return badRequest('* instances[0].prompt: A prompt is required.');
  for (const field of ['image', 'lastFrame'] as const) {
    if (instance[field] !== undefined) {
      const refused = checkImage(instance[field], `instances[0].${field}`);
      if (refused) return refused;
    }
  }
  if (instance.referenceImages !== undefined) {
    if (!Array.isArray(instance.referenceImages) || instance.referenceImages.length > 3) return badRequest('* instances[0].referenceImages: at most 3 reference images.');
    for (const [i, item] of instance.referenceImages.entries()) {
      const refused = isObject(item) ? checkImage(item.image, `instances[0].referenceImages[${i}].image`) : badRequest('referenceImages items must be objects.');
      if (refused) return refused;
    }
  }
  const parameters = body.parameters === undefined ? {} : body.parameters;
  if (!isObject(parameters)) return badRequest('Invalid value at \'parameters\': not an object');
  for (const key of Object.keys(parameters)) if (!PARAMETERS.includes(key)) return badRequest(`${key} isn't supported by this model. Please remove it or refer to the Gemini API documentation for supported usage.`);
  if (parameters.aspectRatio !== undefined && !['16:9', '9:16'].includes(String(parameters.aspectRatio))) return badRequest(`Aspect ratio ${String(parameters.aspectRatio)} is not supported. Supported aspectRatio values are 16:9 and 9:16.`);
  const duration = parameters.durationSeconds;
  if (duration !== undefined && (typeof duration !== 'number' || !veo.durations.includes(duration))) {
    return badRequest(`The number value for durationSeconds is out of bound. Please provide a value in ${veo.durations.join(', ')}.`);
  }
  if (parameters.resolution !== undefined && !veo.resolutions.includes(String(parameters.resolution))) return badRequest(`resolution ${String(parameters.resolution)} is not supported by this model.`);
  if (parameters.resolution === '1080p' && duration !== undefined && duration !== 8) return badRequest('1080p resolution only supports durationSeconds 8.');
  return null;
}

function checkImage(value: unknown, at: string): Reply | null {
  if (!isObject(value)) return badRequest(`Invalid value at '${at}': an image object is required.`);
  for (const key of Object.keys(value)) if (!['bytesBase64Encoded', 'mimeType'].includes(key)) return unknownName(key, at);
  const { bytesBase64Encoded: data, mimeType } = value;
  if (typeof data !== 'string' || data === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return badRequest(`Invalid value at '${at}.bytes_base64_encoded' (TYPE_BYTES), Base64 decoding failed`);
  if (typeof mimeType !== 'string' || !IMAGE_MIMES.includes(mimeType)) return badRequest(`${at}.mimeType: unsupported image MIME type ${String(mimeType)}.`);
  return null;
}
