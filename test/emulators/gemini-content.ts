// POST /v1beta/models/{model}:generateContent of the Gemini API emulator: the request read as
// the API reads it (the body the SDK's generateContentParametersToMldev builds: contents with
// parts of text / inlineData {mimeType, data}; generationConfig with responseModalities and
// imageConfig {aspectRatio, imageSize}), and a GenerateContentResponse: candidates[0].content
// .parts with the image as inlineData (PNG), a text part when TEXT is asked, Gemini 3 Pro Image's
// thought parts first; usageMetadata with the counts the docs give (an image answer is 1290
// tokens on 2.5 Flash Image; 1120 at 1K-2K and 2000 at 4K on 3 Pro Image; an input image 258
// tokens per 768x768 tile). An answer may be made a refusal (promptFeedback.blockReason, a
// finishReason without an image, text only) for the next request.
import { randomBytes } from 'node:crypto';
import { type Reply, json } from './http-kit.js';
import { badRequest, type EmulatedModel, unknownName } from './gemini-errors.js';
import { cachedPng } from './png.js';

export const IMAGE_SIZES: Record<string, [number, number]> = {
  '1:1': [1024, 1024], '2:3': [832, 1248], '3:2': [1248, 832], '3:4': [864, 1184], '4:3': [1184, 864],
  '4:5': [896, 1152], '5:4': [1152, 896], '9:16': [768, 1344], '16:9': [1344, 768], '21:9': [1536, 672],
};
const SCALES: Record<string, number> = { '1K': 1, '2K': 2, '4K': 4 };
const TOP_LEVEL = ['contents', 'generationConfig', 'safetySettings', 'systemInstruction', 'tools', 'toolConfig', 'cachedContent'];
const CONFIG = ['responseModalities', 'imageConfig', 'temperature', 'topP', 'topK', 'seed', 'candidateCount', 'maxOutputTokens', 'stopSequences', 'responseMimeType', 'thinkingConfig', 'mediaResolution'];
const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'];

/** What the next generateContent answers instead of an image. */
export type ImageRefusal = 'prompt-blocked' | 'image-safety' | 'prohibited' | 'text-only' | 'no-image';

export interface ContentRequest {
  model: string;
  body: Record<string, unknown>;
  /** The input images, decoded. */
  images: { mime: string; bytes: Buffer }[];
  texts: string[];
}

type Parsed = { ok: true; request: ContentRequest; modalities: string[]; aspectRatio: string | null; imageSize: string | null } | { ok: false; reply: Reply };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a generateContent body as the API would; a 400 for what it would refuse. */
export function parseContent(model: EmulatedModel, body: Record<string, unknown>): Parsed {
  const fail = (reply: Reply): Parsed => ({ ok: false, reply });
  for (const key of Object.keys(body)) if (!TOP_LEVEL.includes(key)) return fail(unknownName(key, ''));
  if (!Array.isArray(body.contents) || body.contents.length === 0) return fail(badRequest('* GenerateContentRequest.contents: contents is not specified'));
  const images: ContentRequest['images'] = [];
  const texts: string[] = [];
  for (const [i, content] of body.contents.entries()) {
    if (!isObject(content) || !Array.isArray(content.parts) || content.parts.length === 0) return fail(badRequest(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`));
    for (const [j, part] of content.parts.entries()) {
      const at = `contents[${i}].parts[${j}]`;
      if (!isObject(part)) return fail(badRequest(`Invalid value at '${at}': not an object`));
      for (const key of Object.keys(part)) if (!['text', 'inlineData', 'fileData', 'thought'].includes(key)) return fail(unknownName(key, at));
      if (typeof part.text === 'string') texts.push(part.text);
      else if (isObject(part.inlineData)) {
        const { mimeType, data } = part.inlineData;
        if (typeof mimeType !== 'string' || !IMAGE_MIMES.includes(mimeType)) return fail(badRequest(`Unsupported MIME type: ${String(mimeType)}`));
        if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length === 0) return fail(badRequest(`Invalid value at '${at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed`));
        images.push({ mime: mimeType, bytes: Buffer.from(data, 'base64') });
      } else return fail(badRequest(`* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`));
    }
  }
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  for (const key of Object.keys(config)) if (!CONFIG.includes(key)) return fail(unknownName(key, 'generation_config'));
  const modalities = Array.isArray(config.responseModalities) ? config.responseModalities.map((m) => String(m).toUpperCase()) : model.image ? ['TEXT', 'IMAGE'] : ['TEXT'];
  if (modalities.some((m) => !['TEXT', 'IMAGE', 'AUDIO'].includes(m))) return fail(badRequest(`Invalid value at 'generation_config.response_modalities' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig.Modality), "${modalities.join(',')}"`));
  if (modalities.includes('IMAGE') && !model.image) return fail(badRequest('Model does not support the requested response modalities: image'));
  const imageConfig = isObject(config.imageConfig) ? config.imageConfig : {};
  for (const key of Object.keys(imageConfig)) if (!['aspectRatio', 'imageSize'].includes(key)) return fail(unknownName(key, 'generation_config.image_config'));
  const aspectRatio = imageConfig.aspectRatio === undefined ? null : String(imageConfig.aspectRatio);
  if (aspectRatio !== null && !IMAGE_SIZES[aspectRatio]) return fail(badRequest(`Unsupported aspect ratio: ${aspectRatio}. Supported values are ${Object.keys(IMAGE_SIZES).join(', ')}.`));
  const imageSize = imageConfig.imageSize === undefined ? null : String(imageConfig.imageSize);
  if (imageSize !== null && (model.image !== 'pro' || !SCALES[imageSize])) return fail(badRequest(`imageSize ${imageSize} is not supported for this model.`));
  return { ok: true, request: { model: model.id, body, images, texts }, modalities, aspectRatio, imageSize };
}

/** The answer of a parsed request, or the refusal asked for it. */
export function contentAnswer(model: EmulatedModel, parsed: Extract<Parsed, { ok: true }>, refusal: ImageRefusal | undefined): Reply {
  const { request, modalities } = parsed;
  const promptTokens = request.texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0) + request.images.reduce((n, i) => n + imageTokens(i.bytes), 0);
  const base = { modelVersion: model.id, responseId: randomBytes(9).toString('base64url') };
  if (refusal === 'prompt-blocked') {
    return json(200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens }, ...base });
  }
  if (refusal === 'image-safety' || refusal === 'prohibited' || refusal === 'no-image') {
    const finishReason = refusal === 'image-safety' ? 'IMAGE_SAFETY' : refusal === 'prohibited' ? 'IMAGE_PROHIBITED_CONTENT' : 'NO_IMAGE';
    return json(200, { candidates: [{ finishReason, index: 0 }], usageMetadata: usage(promptTokens, 0, 0), ...base });
  }
  const text = { text: 'Here is the image you asked for.' };
  if (refusal === 'text-only' || !modalities.includes('IMAGE')) {
    return json(200, { candidates: [{ content: { role: 'model', parts: [{ text: 'I can only describe it in words.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage(promptTokens, 12, 0), ...base });
  }
  const ratio = parsed.aspectRatio ?? (request.images[0] ? nearestRatio(request.images[0].bytes) : '1:1');
  const scale = SCALES[parsed.imageSize ?? '1K']!;
  const [w, h] = IMAGE_SIZES[ratio]!;
  const png = cachedPng(w * scale, h * scale, request.texts.join(' ').length & 0xff).toString('base64');
  const parts: Record<string, unknown>[] = [];
  let thoughts = 0;
  if (model.image === 'pro') {
    // Gemini 3 Pro Image thinks first, and shows interim images as thought parts.
    parts.push({ text: 'Composing the scene.', thought: true }, { inlineData: { mimeType: 'image/png', data: cachedPng(64, 64, 7).toString('base64') }, thought: true });
    thoughts = 180;
  }
  if (modalities.includes('TEXT')) parts.push(text);
  parts.push({ inlineData: { mimeType: 'image/png', data: png } });
  const imageOut = model.image === 'pro' ? (scale === 4 ? 2000 : 1120) : 1290;
  return json(200, { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage(promptTokens, imageOut + (modalities.includes('TEXT') ? 8 : 0), thoughts), ...base });
}

function usage(prompt: number, candidates: number, thoughts: number): Record<string, unknown> {
  return {
    promptTokenCount: prompt,
    ...(candidates > 0 ? { candidatesTokenCount: candidates } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + candidates + thoughts,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
  };
}

/** 258 tokens for an image up to 384 px a side, else 258 per 768x768 tile (the docs' count). */
function imageTokens(bytes: Buffer): number {
  const size = pngOrJpegSize(bytes);
  if (!size || (size.width <= 384 && size.height <= 384)) return 258;
  return Math.ceil(size.width / 768) * Math.ceil(size.height / 768) * 258;
}

/** The named ratio nearest an input image's shape: the model keeps it when no ratio is asked. */
function nearestRatio(bytes: Buffer): string {
  const size = pngOrJpegSize(bytes);
  if (!size) return '1:1';
  const want = Math.log(size.width / size.height);
  return Object.keys(IMAGE_SIZES).reduce((best, r) => {
    const [w, h] = r.split(':').map(Number) as [number, number];
    const [bw, bh] = best.split(':').map(Number) as [number, number];
    return Math.abs(Math.log(w / h) - want) < Math.abs(Math.log(bw / bh) - want) ? r : best;
  }, '1:1');
}

function pngOrJpegSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    for (let at = 2; at + 9 < bytes.length; ) {
      if (bytes[at] !== 0xff) return null;
      const marker = bytes[at + 1]!;
      const length = bytes.readUInt16BE(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
      at += 2 + length;
    }
  }
  return null;
}
