// An oracle for the studio API, written from the contract (shared/studio-contract.ts: each
// method's fields, their types, which are optional) and the docs' rules (amounts, labels,
// provider URLs and keys, prompts, models, sizes, durations and request types read from the live
// catalog, as the spec tells clients to do), not from the product's input schemas. For one input
// and the state the test has read through the API, it says what the answer must be: success, or
// the standard error with its status, code and the fields `param` may name. Where the docs are
// silent the rule is stated here as the test's decision (see DECIDED).
import type { ModelRecord } from '../../shared/api-types.js';
import type { StudioMethod } from '../../shared/studio-contract.js';

export type Expected =
  | { ok: true }
  /** `params`: the fields the error may name (a path inside one counts as it); null: the whole input. */
  | { ok: false; status: number; code: string; params: (string | null)[]; why: string };

export interface KeyState {
  revoked: boolean;
  balanceNano: bigint;
}

/** What the oracle needs to know of the gateway, read by the test before a call. */
export interface OracleState {
  catalog: Map<string, ModelRecord>;
  /** The owner's key access (free/anonymous callers do not reach pro or usage-based models). */
  ownerAccess: string;
  ownerBalanceNano: bigint;
  ownerAvailableNano: bigint;
  keys: Map<string, KeyState>;
  /** Provider id -> its kind. */
  providers: Map<string, string>;
  /** Provider id -> the catalog models it serves. */
  providerModels: Map<string, number>;
  galleryIds: Set<string>;
  ownerVideoIds: Set<string>;
}

/** Decisions for what the docs leave open; each is one rule, applied the same everywhere. */
export const DECIDED = {
  /** No text field is a place for a megabyte: an id, key or variable name this long is refused (400 naming it). */
  longText: 10_000,
  /** Page sizes of the studio lists: videos as /v1/videos documents (1-100); gallery and activity up to 200. */
  pageMax: { 'videos.list': 100, 'gallery.list': 200, 'activity.list': 200 } as Record<string, number>,
  /** Provider ids: 1-40 lowercase letters, digits or dashes, starting with a letter or digit; "local" is the built-in engine's. */
  providerId: /^[a-z0-9][a-z0-9-]{0,39}$/,
};

const MAX_NANO = BigInt(Number.MAX_SAFE_INTEGER); // docs: an amount, and a balance, is at most 9007199.254740991 USD
const PROMPT_MAX = 32_000; // docs: at most 32,000 characters
const LABEL_MAX = 200; // docs: a key's label is at most 200 characters, without control characters
const ACCESS = ['free', 'pro', 'balance'];
const REQUEST_TYPES = ['text-to-video', 'image-to-video'];
const SELECTORS = ['default', 'fast', 'pro'];

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isIdText = (v: unknown): v is string => isString(v) && v.length >= 1 && v.length <= DECIDED.longText;
const controlChar = /[\u0000-\u001f\u007f-\u009f]/;

/** docs: plain decimals in USD, at most 9 decimals, no sign, exponent or spaces; at most 9007199.254740991. */
export function usdNano(v: unknown): bigint | null {
  if (!isString(v)) return null;
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(v);
  if (!m) return null;
  if (m[1]!.replace(/^0+(?=\d)/, '').length > 16) return null;
  const nano = BigInt(m[1]!) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
  return nano <= MAX_NANO ? nano : null;
}

export function nanoOf(usd: string): bigint {
  const n = usdNano(usd);
  if (n === null) throw new Error(`not an amount: ${usd}`);
  return n;
}

const validPrompt = (v: unknown): boolean => isString(v) && v.trim().length > 0 && v.length <= PROMPT_MAX;
const validLabel = (v: unknown): boolean => isString(v) && v.length <= LABEL_MAX && !controlChar.test(v);

/** The bytes of a file's base64, or null when it is not strict base64. */
function decodeBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  return Buffer.from(text, 'base64');
}

/** PNG, JPEG or WebP by their signatures (the image types the gateway takes). */
function isImage(bytes: Buffer): boolean {
  const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  const webp = bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  return png || jpeg || webp;
}

/** A StudioFile: exactly {name, mime, base64}, all strings. */
const fileShaped = (v: unknown): v is { name: string; mime: string; base64: string } =>
  isObject(v) && Object.keys(v).sort().join() === 'base64,mime,name' && isString(v.name) && isString(v.mime) && isString(v.base64);

/** A file whose bytes are an image within the model's byte limit. */
function fileUsable(file: { base64: string }, record: ModelRecord | undefined): boolean {
  const bytes = decodeBase64(file.base64);
  if (!bytes || !isImage(bytes)) return false;
  const max = record?.capabilities.max_reference_image_bytes;
  return typeof max !== 'number' || bytes.length <= max;
}

interface Field {
  required: boolean;
  /** The contract's JSON type of the field (shared/studio-contract.ts). */
  type: (value: unknown) => boolean;
  /** What the docs say of its format, for a value of the right type. */
  format?: (value: unknown) => boolean;
}

const isNumber = (v: unknown): boolean => typeof v === 'number';
const req = (type: Field['type'], format?: Field['format']): Field => ({ required: true, type, ...(format ? { format } : {}) });
const opt = (type: Field['type'], format?: Field['format']): Field => ({ required: false, type, ...(format ? { format } : {}) });
const idField = req(isString, isIdText);
const usdField = (required: boolean) => ({ required, type: isString, format: (v: unknown) => usdNano(v) !== null });
const limit = (method: string) => opt(isNumber, (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= DECIDED.pageMax[method]!);
const enumOf = (values: readonly string[]) => (v: unknown) => isString(v) && values.includes(v);
const apiKey = (v: unknown) => isString(v) && v.length <= DECIDED.longText && /^[\x21-\x7e]+$/.test(v); // docs: printable ASCII without spaces, not empty
const envName = (v: unknown) => isString(v) && v.length <= DECIDED.longText && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v);
const positiveWhole = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1;
/** docs: a provider's timeout is whole seconds, 1 to 86,400 (a day). */
const timeoutSeconds = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 86_400;
/** DECIDED: the name a studio request's progress events carry is 1-64 characters. */
const progressId = (v: unknown) => isString(v) && v.length >= 1 && v.length <= 64;
const KINDS = ['openai', 'fal', 'replicate', 'gemini', 'runway', 'comfyui', 'a1111', 'sdcpp'];
/** docs: ComfyUI and the stable-diffusion.cpp server take no key; AUTOMATIC1111's is USER:PASS. */
const KEYLESS = ['comfyui', 'sdcpp'];

/** docs: an http(s) API root; no query or fragment, no spaces or control characters, no user name or password. */
function baseUrl(v: unknown): boolean {
  if (!isString(v) || v.length > DECIDED.longText) return false;
  if (/\s/.test(v) || controlChar.test(v) || /[?#]/.test(v)) return false;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
}

/** contract: 1 to 8 routes, each exactly {provider, upstream_model}, strings (DECIDED: an upstream model is 1-500 characters). */
function routeList(v: unknown): boolean {
  const routes = v as unknown[];
  return (
    routes.length >= 1 &&
    routes.length <= 8 &&
    routes.every((r) => isObject(r) && Object.keys(r).sort().join() === 'provider,upstream_model' && isIdText(r.provider) && isString(r.upstream_model) && r.upstream_model.length >= 1 && r.upstream_model.length <= 500)
  );
}

/** docs: an upstream model is a path of non-empty segments other than "." and "..", without control characters. */
const upstreamModelOk = (name: string): boolean => !controlChar.test(name) && name.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');

/** Each method's fields, from shared/studio-contract.ts (every field not listed is an extra one). */
const FIELDS: Record<StudioMethod, Record<string, Field>> = {
  'system.info': {},
  'catalog.list': {},
  'catalog.putWorkflow': {
    id: idField,
    provider: idField,
    workflow: req(isString, (v) => (v as string).length >= 1),
    output: req(enumOf(['image', 'video'])),
    record: opt(isObject),
  },
  'catalog.remove': { id: idField },
  'catalog.setRoutes': { id: idField, routes: req((v) => Array.isArray(v), routeList) },
  'images.generate': { model: req(isString), prompt: req(isString, validPrompt), size: opt(isString), progress_id: opt(isString, progressId) },
  'images.edit': {
    model: req(isString),
    prompt: req(isString, validPrompt),
    size: opt(isString),
    images: req((v) => Array.isArray(v) && v.every(fileShaped)),
    progress_id: opt(isString, progressId),
  },
  'gallery.list': { limit: limit('gallery.list') },
  'gallery.delete': { id: idField },
  'videos.quote': { model: req(isString), seconds: req(isNumber, positiveWhole), request_type: req(enumOf(REQUEST_TYPES)) },
  'videos.create': {
    model: req(isString),
    prompt: req(isString, validPrompt),
    seconds: req(isNumber, positiveWhole),
    size: opt(isString),
    request_type: opt(enumOf(REQUEST_TYPES)),
    reference: opt(fileShaped),
    idempotency_key: opt(isString, (v) => /^[\x21-\x7e]{1,255}$/.test(v as string)),
  },
  'videos.list': { limit: limit('videos.list') },
  'videos.cancel': { id: idField },
  'billing.summary': {},
  // DECIDED: a top-up adds money, so 0 is refused like a malformed amount.
  'billing.topUp': { usd: { required: true, type: isString, format: (v) => (usdNano(v) ?? 0n) > 0n } },
  'keys.list': {},
  'keys.create': { access: req(enumOf(ACCESS)), balance_usd: usdField(false), allowance_usd: usdField(false), label: opt(isString, validLabel) },
  'keys.revoke': { id: idField },
  'keys.topUp': { id: idField, usd: { required: true, type: isString, format: (v) => (usdNano(v) ?? 0n) > 0n } },
  'keys.update': { id: idField, access: opt(enumOf(ACCESS)), allowance_usd: usdField(false) },
  'keys.usage': { id: idField },
  'activity.list': { limit: limit('activity.list') },
  'providers.list': {},
  'providers.add': {
    id: idField,
    kind: req(enumOf(KINDS)),
    base_url: opt(isString, baseUrl),
    api_key: opt(isString, apiKey),
    api_key_env: opt(isString, envName),
    timeout_seconds: opt(isNumber, timeoutSeconds),
  },
  'providers.update': {
    id: idField,
    base_url: opt(isString, baseUrl),
    api_key: opt(isString, apiKey),
    api_key_env: opt(isString, envName),
    timeout_seconds: opt((v) => v === null || isNumber(v), (v) => v === null || timeoutSeconds(v)),
  },
  'providers.remove': { id: idField, remove_models: opt((v) => typeof v === 'boolean') },
  'providers.test': { id: idField },
  'providers.discover': { id: idField },
};

/** The fields the contract makes required for `method`. */
export const requiredFields = (method: StudioMethod): string[] => Object.entries(FIELDS[method]).filter(([, f]) => f.required).map(([name]) => name);

type Refusal = Extract<Expected, { ok: false }>;
const bad = (params: (string | null)[], why: string): Refusal => ({ ok: false, status: 400, code: 'invalid_request', params, why });
/** docs: the studio's key methods name the key `key_id` in their errors (as the CLI does). */
const notFound = (method: string, why: string): Refusal => ({ ok: false, status: 404, code: 'not_found', params: method.startsWith('keys.') ? ['id', 'key_id'] : ['id'], why });

/** Whether `param` (from an error body) is one the expectation allows. */
export function paramAllowed(expected: Refusal, param: string | null): boolean {
  return expected.params.some((p) => (p === null ? param === null : param !== null && (param === p || param.startsWith(`${p}.`) || param.startsWith(`${p}[`))));
}

/** Whether a response (status, error code, param) matches one of the refusals. */
export function matches(options: Refusal[], status: number, code: string | undefined, param: string | null): boolean {
  return options.some((o) => o.status === status && o.code === code && paramAllowed(o, param));
}

const reachable = (record: ModelRecord, access: string): boolean =>
  access === 'pro' || access === 'balance' ? true : record.tier === 'turbo' && record.usage_based_only !== true;

/**
 * The expected answer to `method` called with `input`, given `state`: success, or the refusals
 * any one of which is right. Order of the rules: the contract's types (a missing, extra or
 * mistyped field: 400), then the docs' formats and the catalog record's capabilities (400),
 * then the lookup of the id (404; when both a format and the lookup fail, either answer is
 * right: the docs order neither), then the rules on the state (revoked key, maximum balance,
 * a provider that exists, funds).
 */
export function expectedAnswer(method: StudioMethod, input: unknown, state: OracleState): { ok: true } | { ok: false; options: Refusal[] } {
  // JSON null is no input, as an empty body is (DECIDED: the IPC bridge sends nothing for methods without fields).
  const body = input === null ? {} : input;
  if (!isObject(body)) return { ok: false, options: [bad([null], 'the input is not a JSON object')] };
  const fields = FIELDS[method];
  const typeProblems: (string | null)[] = [];
  const formatProblems: (string | null)[] = [];
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(fields, key)) typeProblems.push(key === '' ? null : key, ...(key === '__proto__' || key === 'constructor' ? [null] : []));
  }
  for (const [name, field] of Object.entries(fields)) {
    if (!Object.hasOwn(body, name)) {
      if (field.required) typeProblems.push(name);
    } else if (!field.type(body[name])) typeProblems.push(name);
    else if (field.format && !field.format(body[name])) formatProblems.push(name);
  }
  const rules = semantic(method, body, state, new Set([...typeProblems, ...formatProblems].filter((p): p is string => p !== null)));
  formatProblems.push(...rules.format);
  if (typeProblems.length > 0) return { ok: false, options: [bad([...typeProblems, ...formatProblems], 'a field is missing, extra or of the wrong type')] };
  const options: Refusal[] = [];
  if (formatProblems.length > 0) options.push(bad(formatProblems, 'a field breaks the rules of the docs or the catalog record'));
  if (rules.lookup) options.push(rules.lookup);
  if (options.length > 0) return { ok: false, options };
  const after = rules.state?.();
  return after ? { ok: false, options: [after] } : { ok: true };
}

interface Rules {
  /** Fields breaking the docs or catalog rules. */
  format: (string | null)[];
  /** The id names nothing: the 404. */
  lookup?: Refusal;
  /** A refusal that depends on the state, once the input is right. */
  state?: () => Refusal | null;
}

function semantic(method: StudioMethod, b: Record<string, unknown>, s: OracleState, broken: Set<string>): Rules {
  const id = b.id as string;
  const has = (name: string) => b[name] !== undefined && !broken.has(name);
  switch (method) {
    case 'catalog.remove':
      return { format: [], ...(s.catalog.has(id) ? {} : { lookup: notFound(method, 'no such model') }) };
    case 'catalog.setRoutes': {
      const routes = (has('routes') ? b.routes : []) as { provider: string; upstream_model: string }[];
      const format: string[] = [];
      // docs: every route names a configured provider (or the built-in "local"), a usable upstream model, once.
      const known = (provider: string) => provider === 'local' || s.providers.has(provider);
      const pairs = routes.map((r) => `${r.provider}:${r.upstream_model}`);
      if (routes.some((r) => !known(r.provider) || !upstreamModelOk(r.upstream_model)) || new Set(pairs).size !== pairs.length) format.push('routes');
      return { format, ...(s.catalog.has(id) ? {} : { lookup: notFound(method, 'no such model') }) };
    }
    case 'catalog.putWorkflow': {
      const kind = s.providers.get(b.provider as string);
      const format: string[] = [];
      if (has('workflow') && !isJson(b.workflow as string)) format.push('workflow');
      if (!kind) return { format, lookup: { ok: false, status: 404, code: 'not_found', params: ['provider'], why: 'no such provider' } };
      // docs: only a comfyui provider runs workflows; any other refuses one, naming it.
      return { format, state: () => (kind === 'comfyui' ? null : bad(['workflow'], 'the provider takes no workflow')) };
    }
    case 'images.generate':
    case 'images.edit': {
      const record = s.catalog.get(b.model as string);
      const capability = method === 'images.generate' ? 'image_generation' : 'image_edit';
      const format: string[] = [];
      const modelOk = !!record && !SELECTORS.includes(b.model as string) && record.capabilities[capability] === true;
      if (has('model') && !modelOk) format.push('model');
      if (has('size') && !(record?.capabilities.supported_sizes ?? []).includes(b.size as string)) format.push('size');
      if (method === 'images.edit' && has('images')) {
        const images = b.images as { base64: string }[];
        const max = typeof record?.capabilities.max_reference_images === 'number' ? record.capabilities.max_reference_images : 3;
        if (images.length < 1 || images.length > max || !images.every((file) => fileUsable(file, record))) format.push('images', 'image');
      }
      return {
        format,
        state: () => (reachable(record!, s.ownerAccess) ? null : { ok: false, status: 402, code: 'insufficient_balance', params: [null, 'model'], why: 'access' }),
      };
    }
    case 'videos.quote':
    case 'videos.create': {
      const record = s.catalog.get(b.model as string);
      if (!record || record.capabilities.video_generation !== true) {
        // No record to check seconds against: a duration no video model of the catalog lists may be named too.
        const listed = [...s.catalog.values()].flatMap((r) => (r.capabilities.supported_seconds as number[] | undefined) ?? []);
        return { format: [...(has('model') ? ['model'] : []), ...(has('seconds') && !listed.includes(b.seconds as number) ? ['seconds'] : [])] };
      }
      const caps = record.capabilities;
      const format: string[] = [];
      if (has('seconds') && !((caps.supported_seconds as number[] | undefined) ?? []).includes(b.seconds as number)) format.push('seconds');
      if (has('size') && !((caps.supported_sizes as string[] | undefined) ?? []).includes(b.size as string)) format.push('size');
      const reference = has('reference') ? (b.reference as { base64: string }) : undefined;
      if (reference && !fileUsable(reference, record)) format.push('reference');
      const type = (b.request_type as string | undefined) ?? (b.reference !== undefined ? 'image-to-video' : 'text-to-video');
      const types = (caps.request_types as string[] | undefined) ?? REQUEST_TYPES;
      if (!types.includes(type)) format.push('request_type');
      if (method === 'videos.create') {
        // Spec rule 6, then the type/reference mismatches (docs: order of the video rules).
        if (caps.requires_reference_image === true && b.reference === undefined) format.push('reference');
        if (type === 'image-to-video' && b.reference === undefined) format.push('reference', 'request_type');
        if (type === 'text-to-video' && b.reference !== undefined) format.push('reference', 'request_type');
      }
      return {
        format,
        state: () => {
          if (!reachable(record, s.ownerAccess)) return { ok: false, status: 402, code: 'insufficient_balance', params: [null, 'model'], why: 'access' };
          if (method !== 'videos.create') return null;
          const routes = (record.pricing.route_prices_usd_per_second ?? []) as { request_type: string; public_price_usd_per_second: number }[];
          const price = routes.find((r) => r.request_type === type)?.public_price_usd_per_second ?? record.pricing.price ?? 0;
          const hold = BigInt(Math.round(price * 1e9)) * BigInt(b.seconds as number);
          return hold > s.ownerAvailableNano ? { ok: false, status: 402, code: 'insufficient_balance', params: [null], why: 'funds' } : null;
        },
      };
    }
    case 'gallery.delete':
      return { format: [], ...(s.galleryIds.has(id) ? {} : { lookup: notFound(method, 'no such gallery item') }) };
    case 'videos.cancel':
      return { format: [], ...(s.ownerVideoIds.has(id) ? {} : { lookup: notFound(method, 'no task of the owner') }) };
    case 'billing.topUp':
      return { format: [], state: () => (s.ownerBalanceNano + usdNano(b.usd)! > MAX_NANO ? bad(['usd'], 'the balance would pass the maximum') : null) };
    case 'keys.revoke':
    case 'keys.usage':
    case 'keys.topUp':
    case 'keys.update': {
      const key = s.keys.get(id);
      if (!key) return { format: [], lookup: notFound(method, 'no such key') };
      return {
        format: [],
        state: () => {
          if (method === 'keys.revoke' || method === 'keys.usage') return null;
          // DECIDED (as providers.update): an update that changes nothing is refused, param null.
          if (method === 'keys.update' && b.access === undefined && b.allowance_usd === undefined) return bad([null], 'nothing to change');
          // docs: a revoked key is final; keys.topUp and keys.update answer 400 param key_id.
          if (key.revoked) return bad(['key_id'], 'the key is revoked');
          if (method === 'keys.topUp' && key.balanceNano + usdNano(b.usd)! > MAX_NANO) return bad(['usd'], 'the balance would pass the maximum');
          return null;
        },
      };
    }
    case 'providers.add': {
      const format: string[] = [];
      if (has('id') && (!DECIDED.providerId.test(id) || id === 'local')) format.push('id');
      if (b.kind === 'openai' && b.base_url === undefined) format.push('base_url');
      if (b.api_key !== undefined && b.api_key_env !== undefined) format.push('api_key', 'api_key_env');
      if (KEYLESS.includes(b.kind as string) && (b.api_key !== undefined || b.api_key_env !== undefined)) format.push('api_key');
      if (b.kind === 'a1111' && has('api_key') && !/^[^:]+:.+$/.test(b.api_key as string)) format.push('api_key');
      // An id that exists already is a refusal of the input too (docs: 400 param id); the docs order neither first.
      if ((format.length > 0 || broken.size > 0) && s.providers.has(id)) format.push('id');
      return { format, state: () => (s.providers.has(id) ? bad(['id'], 'the provider exists already') : null) };
    }
    case 'providers.update': {
      const format: (string | null)[] = [];
      if (b.api_key !== undefined && b.api_key_env !== undefined) format.push('api_key', 'api_key_env');
      if (b.base_url === undefined && b.api_key === undefined && b.api_key_env === undefined && b.timeout_seconds === undefined) format.push(null);
      const kind = s.providers.get(id);
      if (kind && KEYLESS.includes(kind) && (b.api_key !== undefined || b.api_key_env !== undefined)) format.push('api_key');
      if (kind === 'a1111' && has('api_key') && !/^[^:]+:.+$/.test(b.api_key as string)) format.push('api_key');
      return { format, ...(s.providers.has(id) ? {} : { lookup: notFound(method, 'no such provider') }) };
    }
    case 'providers.remove':
      if (!s.providers.has(id)) return { format: [], lookup: notFound(method, 'no such provider') };
      return { format: [], state: () => ((s.providerModels.get(id) ?? 0) > 0 && b.remove_models !== true ? bad(['id'], 'models still use it') : null) };
    case 'providers.test':
      return { format: [], ...(s.providers.has(id) ? {} : { lookup: notFound(method, 'no such provider') }) };
    case 'providers.discover':
      if (!s.providers.has(id)) return { format: [], lookup: notFound(method, 'no such provider') };
      // The only provider there is to discover sits on a closed port: unreachable.
      return { format: [], state: () => ({ ok: false, status: 503, code: 'upstream_unavailable', params: [null], why: 'the upstream is unreachable' }) };
    default:
      return { format: [] };
  }
}
