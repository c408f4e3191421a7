// The Gemini API's answers, read (js-genai: src/models.ts, src/operations.ts and the mldev
// converters in src/converters/_models_converters.ts):
//
// Images: POST {api}/models/{model}:generateContent answers a GenerateContentResponse,
//   {candidates: [{content: {role, parts: [{text} | {inlineData: {mimeType, data}}, ...]},
//   finishReason, safetyRatings}], promptFeedback?: {blockReason}, usageMetadata: {promptTokenCount,
//   candidatesTokenCount, thoughtsTokenCount?, cachedContentTokenCount?, totalTokenCount}}.
//   The image is the first inlineData part that is not a thought (Gemini 3 Pro Image sends its
//   interim images as parts with thought: true). An answer without one was blocked
//   (promptFeedback.blockReason, or a finishReason such as SAFETY or IMAGE_SAFETY) or gave none.
// Videos: POST {api}/models/{model}:predictLongRunning answers an Operation {name}
//   ("models/veo-3.0-generate-001/operations/abc"); GET {api}/{name} answers it again until
//   done: {name, done: true, error?: {code, message}, response?: {generateVideoResponse:
//   {generatedSamples: [{video: {uri} | {encodedVideo, encoding}}], raiMediaFilteredCount,
//   raiMediaFilteredReasons}}} (generateVideosOperationFromMldev).
import type { TokenUsage } from '../../billing/pricing.js';
import { isCount } from '../../catalog/capability-read.js';
import { GatewayError } from '../../errors.js';
import { decodeImageBase64 } from '../upstream/image-payload.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { blocked, GEMINI } from './gemini-errors.js';
import { isJsonObject } from './gemini-templates.js';

/** finishReasons (and blockReasons) that mean a safety or policy filter stopped the image. */
const BLOCKING = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'IMAGE_PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_RECITATION', 'MODEL_ARMOR', 'JAILBREAK']);
/** The other finishReasons of the SDK's FinishReason enum (types.ts); only these names are said. */
const STOPPED = new Set(['NO_IMAGE', 'IMAGE_OTHER', 'OTHER', 'LANGUAGE', 'MAX_TOKENS', 'MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/** The API root for a base URL given with or without its version. */
export const apiRoot = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '').replace(/\/v1(beta|alpha)?$/, '')}/v1beta`;

/** The resource name of a model ("models/{id}"), as the SDK's tModel makes it; its segments checked. */
export function modelName(upstreamModel: string): string {
  const name = /^(models|tunedModels)\//.test(upstreamModel) ? upstreamModel : `models/${upstreamModel}`;
  if (!/^(models|tunedModels)\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new GatewayError('upstream_bad_request', `The model\u2019s upstream name is not one ${GEMINI} takes (models/{id}); the owner must check it.`);
  }
  return name;
}

export interface AnswerImage {
  bytes: Buffer;
  b64: string;
}

/** The image of a generateContent answer; an answer without one throws in gateway words. */
export function imageOfAnswer(body: unknown): AnswerImage {
  if (!isJsonObject(body)) throw invalidResponse('the answer is not an object');
  const feedback = isJsonObject(body.promptFeedback) ? body.promptFeedback : {};
  const candidates = Array.isArray(body.candidates) ? body.candidates.filter(isJsonObject) : [];
  if (typeof feedback.blockReason === 'string' && candidates.length === 0) throw blockedBy('blocked the prompt', feedback.blockReason);
  if (candidates.length === 0) throw invalidResponse('the answer has no candidates');
  const candidate = candidates[0]!;
  const content = isJsonObject(candidate.content) ? candidate.content : {};
  const parts = Array.isArray(content.parts) ? content.parts.filter(isJsonObject) : [];
  for (const part of parts) {
    if (part.thought === true) continue;
    const inline = isJsonObject(part.inlineData) ? part.inlineData : isJsonObject(part.inline_data) ? part.inline_data : null;
    if (!inline) continue;
    const mime = typeof inline.mimeType === 'string' ? inline.mimeType : typeof inline.mime_type === 'string' ? inline.mime_type : '';
    if (!mime.startsWith('image/')) continue;
    return { bytes: decodeImageBase64(inline.data), b64: inline.data as string };
  }
  const reason = typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
  if (reason !== null && BLOCKING.has(reason)) throw blockedBy('blocked the image', reason);
  if (reason !== null && STOPPED.has(reason)) throw blocked(`gave no image (${reason})`);
  const text = parts.some((part) => typeof part.text === 'string');
  throw blocked(text ? 'answered with text and no image (the model may not make images, or declined)' : 'gave no image');
}

function blockedBy(what: string, reason: string): GatewayError {
  return blocked(`${what}${BLOCKING.has(reason) || STOPPED.has(reason) ? ` (${reason})` : ''}`);
}

/**
 * The usage the answer reports, or null when it reports none (the gateway's estimate is billed
 * then). promptTokenCount includes the cached tokens, which the gateway bills apart; thinking
 * tokens (thoughtsTokenCount) are billed as output, as Google bills them.
 */
export function usageOf(body: unknown): TokenUsage | null {
  const meta = isJsonObject(body) && isJsonObject(body.usageMetadata) ? body.usageMetadata : null;
  if (!meta || meta.promptTokenCount === undefined || meta.candidatesTokenCount === undefined) return null;
  const { promptTokenCount: prompt, candidatesTokenCount: candidates } = meta;
  const thoughts = meta.thoughtsTokenCount ?? 0;
  const tools = meta.toolUsePromptTokenCount ?? 0;
  const cached = meta.cachedContentTokenCount;
  // Counts that are not whole and non-negative would bill a fraction (a 500) or a credit.
  if (![prompt, candidates, thoughts, tools].every(isCount) || (cached !== undefined && !isCount(cached))) throw invalidResponse('the usage is not whole token counts');
  const input = (prompt as number) + (tools as number);
  const output = (candidates as number) + (thoughts as number);
  if (cached === undefined || cached === 0) return { input_tokens: input, output_tokens: output };
  const cache = Math.min(cached as number, input);
  return { input_tokens: input - cache, output_tokens: output, cache_tokens: cache };
}

/** The name of a created operation, checked to be a resource path the poll can use as it is. */
export function operationNameOf(body: unknown): string {
  const name = isJsonObject(body) ? body.name : undefined;
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,500}$/.test(name) || name.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw invalidResponse('the operation has no usable name');
  }
  return name;
}

export type OperationState =
  | { done: false }
  | { done: true; outcome: 'error' | 'filtered' | 'empty' }
  | { done: true; outcome: 'video'; uri: string | null; bytes: Buffer | null };

export function operationStateOf(body: unknown): OperationState {
  if (!isJsonObject(body)) throw invalidResponse('the operation is not an object');
  if (body.done !== true) return { done: false };
  if (body.error !== undefined && body.error !== null) return { done: true, outcome: 'error' };
  const response = isJsonObject(body.response) && isJsonObject(body.response.generateVideoResponse) ? body.response.generateVideoResponse : {};
  const samples = Array.isArray(response.generatedSamples) ? response.generatedSamples.filter(isJsonObject) : [];
  const video = samples.map((sample) => (isJsonObject(sample.video) ? sample.video : null)).find((v) => v !== null);
  if (video) {
    const uri = typeof video.uri === 'string' && video.uri !== '' ? video.uri : null;
    const bytes = typeof video.encodedVideo === 'string' && video.encodedVideo !== '' ? Buffer.from(video.encodedVideo, 'base64') : null;
    if (uri !== null || (bytes !== null && bytes.length > 0)) return { done: true, outcome: 'video', uri, bytes };
  }
  const filtered = typeof response.raiMediaFilteredCount === 'number' && response.raiMediaFilteredCount > 0;
  return { done: true, outcome: filtered ? 'filtered' : 'empty' };
}
