// What the Runway emulator's endpoints accept, model by model, from the official SDK's request
// types (runwayml/sdk-node 4.12.0: src/resources/text-to-image.ts, image-to-video.ts,
// text-to-video.ts), and Runway's inputs page (docs.dev.runwayml.com/assets/inputs: HTTPS URLs or
// data URIs of image/png, image/jpeg or image/webp, a data URI under 5 MB encoded).
// A refusal is Runway's 400 {error: "Validation of body failed", issues: [{code, path, message}],
// docUrl} (zod issues, as answers seen from the API show them). Guesses: unknown keys are
// refused (unrecognized_keys), though the API may drop them; an unusable asset answers 400
// {error: "<field>: <reason>"} (the troubleshooting page says the message names the field and
// the reason, not its layout).

export type RunwayEndpoint = 'text_to_image' | 'image_to_video' | 'text_to_video';

export interface Issue {
  code: string;
  path: (string | number)[];
  message: string;
}

/** A refused asset (a data URI it cannot read, an http:// URL). */
export interface AssetProblem {
  field: string;
  reason: string;
}

type Rule =
  | { kind: 'prompt'; max: number }
  | { kind: 'enum'; values: readonly (string | number)[] }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'image' }
  | { kind: 'references'; min: number; max: number; tag: boolean }
  | { kind: 'any' };

interface ModelSchema {
  required: Record<string, Rule>;
  optional: Record<string, Rule>;
}

const SQUAREISH = ['1024:1024', '1080:1080', '1168:880', '1360:768', '1440:1080', '1080:1440', '1808:768', '1920:1080', '1080:1920', '2112:912', '1280:720', '720:1280', '720:720', '960:720', '720:960', '1680:720'];
const GEMINI = ['1344:768', '768:1344', '1024:1024', '1184:864', '864:1184', '1536:672', '832:1248', '1248:832', '896:1152', '1152:896'];
const SEEDREAM_PRO = ['1024:1024', '1184:896', '896:1184', '1376:768', '768:1376', '1296:864', '864:1296', '2048:2048', '2304:1728', '1728:2304', '2720:1530', '1530:2720', '2496:1664', '1664:2496', 'auto_1k', 'auto_2k'];
const GEN4_VIDEO = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];
const VEO = ['1280:720', '720:1280', '1080:1920', '1920:1080'];

const prompt1000: Rule = { kind: 'prompt', max: 1000 };
const seed: Rule = { kind: 'int', min: 0, max: 4294967295 };
const moderation: Rule = { kind: 'any' };

const SCHEMAS: Record<RunwayEndpoint, Record<string, ModelSchema>> = {
  text_to_image: {
    gen4_image: {
      required: { promptText: prompt1000, ratio: { kind: 'enum', values: SQUAREISH } },
      optional: { referenceImages: { kind: 'references', min: 0, max: 3, tag: true }, seed, contentModeration: moderation },
    },
    gen4_image_turbo: {
      required: { promptText: prompt1000, ratio: { kind: 'enum', values: SQUAREISH }, referenceImages: { kind: 'references', min: 1, max: 3, tag: true } },
      optional: { seed, contentModeration: moderation },
    },
    'gemini_2.5_flash': {
      required: { promptText: { kind: 'prompt', max: 32_000 }, ratio: { kind: 'enum', values: GEMINI } },
      optional: { referenceImages: { kind: 'references', min: 0, max: 3, tag: true } },
    },
    seedream5_pro: {
      required: { promptText: { kind: 'prompt', max: 4000 }, ratio: { kind: 'enum', values: SEEDREAM_PRO } },
      optional: { referenceImages: { kind: 'references', min: 0, max: 14, tag: false }, outputCount: { kind: 'int', min: 1, max: 4 }, outputFormat: { kind: 'enum', values: ['png', 'jpeg'] }, grounding: { kind: 'any' } },
    },
  },
  image_to_video: {
    gen4_turbo: {
      required: { promptImage: { kind: 'image' }, ratio: { kind: 'enum', values: GEN4_VIDEO } },
      optional: { duration: { kind: 'int', min: 2, max: 10 }, promptText: prompt1000, seed, contentModeration: moderation },
    },
    'gen4.5': {
      required: { promptImage: { kind: 'image' }, promptText: prompt1000, ratio: { kind: 'enum', values: GEN4_VIDEO }, duration: { kind: 'int', min: 2, max: 10 } },
      optional: { seed, contentModeration: moderation },
    },
    veo3: {
      required: { promptImage: { kind: 'image' }, ratio: { kind: 'enum', values: VEO }, duration: { kind: 'enum', values: [8] } },
      optional: { promptText: prompt1000, negativePrompt: { kind: 'any' } },
    },
    'veo3.1': {
      required: { promptImage: { kind: 'image' }, ratio: { kind: 'enum', values: VEO } },
      optional: { duration: { kind: 'enum', values: [4, 6, 8] }, promptText: prompt1000, audio: { kind: 'any' }, negativePrompt: { kind: 'any' } },
    },
  },
  text_to_video: {
    'gen4.5': {
      required: { promptText: prompt1000, ratio: { kind: 'enum', values: ['1280:720', '720:1280'] }, duration: { kind: 'int', min: 2, max: 10 } },
      optional: { seed, contentModeration: moderation },
    },
    veo3: {
      required: { promptText: prompt1000, ratio: { kind: 'enum', values: VEO }, duration: { kind: 'enum', values: [8] } },
      optional: { negativePrompt: { kind: 'any' } },
    },
    'veo3.1': {
      required: { promptText: prompt1000, ratio: { kind: 'enum', values: VEO } },
      optional: { duration: { kind: 'enum', values: [4, 6, 8] }, audio: { kind: 'any' }, negativePrompt: { kind: 'any' } },
    },
  },
};
SCHEMAS.image_to_video['veo3.1_fast'] = SCHEMAS.image_to_video['veo3.1']!;
SCHEMAS.text_to_video['veo3.1_fast'] = SCHEMAS.text_to_video['veo3.1']!;

/** The models the emulator knows on an endpoint. */
export const modelsOf = (endpoint: RunwayEndpoint): string[] => Object.keys(SCHEMAS[endpoint]);

const MAX_DATA_URI = 5 * 1024 * 1024;
const DATA_URI = /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/]+={0,2})$/;

/** Why an image input cannot be used, or null when it can (an HTTPS URL is taken as is: nothing is fetched). */
export function assetProblem(uri: string): string | null {
  if (uri.startsWith('data:')) {
    if (uri.length >= MAX_DATA_URI) return 'The data URI is too large.';
    const match = DATA_URI.exec(uri);
    if (!match) return uri.startsWith('data:image/') ? 'Invalid data URI.' : 'Unsupported asset type.';
    const bytes = Buffer.from(match[2]!, 'base64');
    const png = bytes.length > 8 && bytes.readUInt32BE(0) === 0x89504e47;
    const jpeg = bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8;
    const webp = bytes.length > 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP';
    return png || jpeg || webp ? null : 'Invalid data URI.';
  }
  if (!/^https:\/\//.test(uri)) return 'Only HTTPS URLs are allowed.';
  return null;
}

/** The issues of a creation body (none: it is valid), and an asset it could not use. */
export function validate(endpoint: RunwayEndpoint, body: Record<string, unknown>): { issues: Issue[]; asset: AssetProblem | null } {
  const schema = typeof body.model === 'string' ? SCHEMAS[endpoint][body.model] : undefined;
  if (!schema) {
    const code = typeof body.model === 'string' ? 'invalid_union' : 'invalid_type';
    return { issues: [{ code, path: ['model'], message: code === 'invalid_union' ? 'Invalid input' : 'Invalid input: expected string, received undefined' }], asset: null };
  }
  const issues: Issue[] = [];
  let asset: AssetProblem | null = null;
  const rules = { ...schema.required, ...schema.optional };
  for (const [field, rule] of Object.entries(rules)) {
    const value = body[field];
    if (value === undefined) {
      if (field in schema.required) issues.push({ code: 'invalid_type', path: [field], message: 'Invalid input: expected a value, received undefined' });
      continue;
    }
    const found = check(field, rule, value);
    if (typeof found === 'string') asset ??= { field, reason: found };
    else if (found) issues.push(found);
  }
  const unknown = Object.keys(body).filter((key) => key !== 'model' && !(key in rules));
  if (unknown.length > 0) issues.push({ code: 'unrecognized_keys', path: [], message: `Unrecognized key(s) in object: ${unknown.map((k) => `'${k}'`).join(', ')}` });
  return { issues, asset };
}

/** One field: an issue, an asset problem (a string), or nothing. */
function check(field: string, rule: Rule, value: unknown): Issue | string | null {
  const issue = (code: string, message: string): Issue => ({ code, path: [field], message });
  switch (rule.kind) {
    case 'any':
      return null;
    case 'prompt':
      if (typeof value !== 'string') return issue('invalid_type', 'Invalid input: expected string');
      if (value.length === 0) return issue('too_small', 'Too small: expected string to have >=1 characters');
      return value.length > rule.max ? issue('too_big', `Too big: expected string to have <=${rule.max} characters`) : null;
    case 'enum':
      return rule.values.includes(value as string | number) ? null : issue('invalid_value', `Invalid option: expected one of ${rule.values.map((v) => JSON.stringify(v)).join('|')}`);
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return issue('invalid_type', 'Invalid input: expected int');
      if (value < rule.min) return issue('too_small', `Too small: expected number to be >=${rule.min}`);
      return value > rule.max ? issue('too_big', `Too big: expected number to be <=${rule.max}`) : null;
    case 'image': {
      const uri = typeof value === 'string' ? value : Array.isArray(value) && value.length === 1 && typeof (value[0] as { uri?: unknown })?.uri === 'string' ? (value[0] as { uri: string }).uri : null;
      if (uri === null) return issue('invalid_union', 'Invalid input');
      return assetProblem(uri);
    }
    case 'references': {
      if (!Array.isArray(value)) return issue('invalid_type', 'Invalid input: expected array');
      if (value.length < rule.min) return issue('too_small', `Too small: expected array to have >=${rule.min} items`);
      if (value.length > rule.max) return issue('too_big', `Too big: expected array to have <=${rule.max} items`);
      for (const item of value) {
        const ref = item as { uri?: unknown; tag?: unknown } | null;
        if (typeof ref?.uri !== 'string') return issue('invalid_type', 'Invalid input: expected object with uri');
        if (ref.tag !== undefined && (!rule.tag || typeof ref.tag !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{2,15}$/.test(ref.tag))) return issue('invalid_string', 'Invalid tag');
        const problem = assetProblem(ref.uri);
        if (problem) return problem;
      }
      return null;
    }
  }
}
