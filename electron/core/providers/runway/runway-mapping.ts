// Requests and answers of Runway's API (api.dev.runwayml.com), read from the official SDK
// (runwayml/sdk-node: src/client.ts, src/resources/{text-to-image,image-to-video,text-to-video,
// tasks,organization}.ts, src/lib/polling.ts) and Runway's API docs:
//
//   every call: Authorization: Bearer <key>, X-Runway-Version: 2024-11-06
//   POST /v1/text_to_image   {model, promptText, ratio, referenceImages?: [{uri, tag?}], seed?} -> {id}
//   POST /v1/image_to_video  {model, promptImage, promptText?, ratio, duration, seed?}          -> {id}
//   POST /v1/text_to_video   {model, promptText, ratio, duration, seed?}                        -> {id}
//   GET  /v1/tasks/{id}      {id, createdAt, status: PENDING | THROTTLED | RUNNING (progress 0..1)
//                             | SUCCEEDED (output: URLs that expire in 24-48 h) | FAILED (failure,
//                             failureCode) | CANCELLED}; "no updates more often than every 5 s"
//   DELETE /v1/tasks/{id}    cancels a running task, deletes an ended one (204)
//   GET  /v1/organization    {creditBalance, tier: {maxMonthlyCreditSpend, models}, usage}
//
// Images go inline as data URIs ("supported anywhere URLs are expected"), under 5 MB encoded.
import { invalidResponse } from '../upstream/upstream-errors.js';

export const RUNWAY = 'Runway';
/** The API version the gateway speaks (the SDK's default, sent on every call). */
export const RUNWAY_VERSION = '2024-11-06';
/**
 * The least time between two reads of one task: Runway's tasks endpoint says not to expect
 * updates more often than every five seconds (the SDK itself waits 6 s +- 1.5 s).
 */
export const POLL_INTERVAL_MS = 5_000;
/** The longest data URI Runway takes (1024 x 1024 x 5 characters: its inputs page). */
export const MAX_DATA_URI_CHARS = 5 * 1024 * 1024;

export type Endpoint = 'text_to_image' | 'image_to_video' | 'text_to_video';

const SQUAREISH = ['1024:1024', '1080:1080', '1168:880', '1360:768', '1440:1080', '1080:1440', '1808:768', '1920:1080', '1080:1920', '2112:912', '1280:720', '720:1280', '720:720', '960:720', '720:960', '1680:720'];
const GEMINI_IMAGE = ['1344:768', '768:1344', '1024:1024', '1184:864', '864:1184', '1536:672', '832:1248', '1248:832', '896:1152', '1152:896'];
/** The 2K and 4K sizes the Gemini 3 image models add. */
const GEMINI_4K_8K = [
  '2048:2048', '1696:2528', '2528:1696', '1792:2400', '2400:1792', '1856:2304', '2304:1856', '1536:2752', '2752:1536', '3168:1344',
  '4096:4096', '3392:5056', '5056:3392', '3584:4800', '4800:3584', '3712:4608', '4608:3712', '3072:5504', '5504:3072', '6336:2688',
];
const GEN4_VIDEO = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];
const VEO = ['1280:720', '720:1280', '1080:1920', '1920:1080'];
const SEEDANCE_720 = ['992:432', '864:496', '752:560', '640:640', '560:752', '496:864', '1470:630', '1280:720', '1112:834', '960:960', '834:1112', '720:1280'];
const SEEDANCE = [...SEEDANCE_720, '2206:946', '1920:1080', '1664:1248', '1440:1440', '1248:1664', '1080:1920', '3840:1646', '3840:2160', '3840:2880', '3840:3840', '2880:3840', '2160:3840'];

/**
 * The ratios each model takes, by endpoint, as the SDK lists them (4.12.0). A model not listed
 * gets the size as asked ("1280:720"); its owner's template may fix the ratio instead.
 */
export const MODEL_RATIOS: Record<Endpoint, Record<string, readonly string[]>> = {
  text_to_image: {
    gen4_image: SQUAREISH,
    gen4_image_turbo: SQUAREISH,
    'gemini_2.5_flash': GEMINI_IMAGE,
    gemini_image3_pro: [...GEMINI_IMAGE, ...GEMINI_4K_8K],
    'gemini_image3.1_flash': [
      '512:512', '416:624', '624:416', '432:592', '592:432', '448:576', '576:448', '384:672', '672:384', '768:336', '256:1024', '1024:256', '176:1408', '1408:176',
      ...GEMINI_IMAGE, '512:2048', '2048:512', '352:2816', '2816:352', ...GEMINI_4K_8K,
      '1024:4096', '4096:1024', '704:5632', '5632:704', '2048:8192', '8192:2048', '1408:11264', '11264:1408',
    ],
    gpt_image_2: [
      '2048:880', '1920:1088', '1920:1280', '1920:1440', '1920:1536', '1920:1920', '1536:1920', '1440:1920', '1280:1920', '1088:1920',
      '2912:1248', '2560:1440', '2560:1712', '2560:1920', '2560:2048', '2560:2560', '2048:2560', '1920:2560', '1712:2560', '1440:2560',
      '3840:1648', '3840:2160', '3504:2336', '3264:2448', '3200:2560', '2880:2880', '2560:3200', '2448:3264', '2336:3504', '2160:3840',
    ],
    seedream5_pro: ['1024:1024', '1184:896', '896:1184', '1376:768', '768:1376', '1296:864', '864:1296', '2048:2048', '2304:1728', '1728:2304', '2720:1530', '1530:2720', '2496:1664', '1664:2496'],
    seedream5_lite: [
      '2048:2048', '2304:1728', '1728:2304', '2848:1600', '1600:2848', '2496:1664', '1664:2496', '3136:1344',
      '3072:3072', '3456:2592', '2592:3456', '4096:2304', '2304:4096', '3744:2496', '2496:3744', '4704:2016',
    ],
  },
  image_to_video: {
    gen4_turbo: GEN4_VIDEO,
    'gen4.5': GEN4_VIDEO,
    veo3: VEO,
    'veo3.1': VEO,
    'veo3.1_fast': VEO,
    seedance2: SEEDANCE,
    seedance2_fast: SEEDANCE_720,
    seedance2_mini: SEEDANCE_720,
    gemini_omni_flash: ['1280:720', '720:1280'],
  },
  text_to_video: {
    'gen4.5': ['1280:720', '720:1280'],
    veo3: VEO,
    'veo3.1': VEO,
    'veo3.1_fast': VEO,
    seedance2: SEEDANCE,
    seedance2_fast: SEEDANCE_720,
    seedance2_mini: SEEDANCE_720,
    gemini_omni_flash: ['1280:720', '720:1280'],
  },
};

/** Ratios whose shapes differ by less than this (in log of width/height) count as the same shape. */
const SAME_SHAPE = 0.01;

/**
 * The `{{ratio}}` of a request: for a model whose ratios are known, the allowed one nearest in
 * shape to the size asked (and among those of that shape, the nearest in area); otherwise the
 * size as asked, W:H.
 */
export function runwayRatio(endpoint: Endpoint, upstreamModel: string, width: number, height: number): string {
  const allowed = MODEL_RATIOS[endpoint][upstreamModel];
  return allowed ? nearestRatio(allowed, width, height) : `${width}:${height}`;
}

export function nearestRatio(allowed: readonly string[], width: number, height: number): string {
  const shape = Math.log(width / height);
  const area = Math.log(width * height);
  const candidates = allowed.map((ratio) => {
    const [w = 0, h = 0] = ratio.split(':').map(Number);
    return { ratio, shape: Math.abs(Math.log(w / h) - shape), area: Math.abs(Math.log(w * h) - area) };
  });
  const best = Math.min(...candidates.map((c) => c.shape));
  const sameShape = candidates.filter((c) => c.shape <= best + SAME_SHAPE);
  return sameShape.reduce((a, b) => (b.area < a.area ? b : a)).ratio;
}

/** Models that take a `seed` (Runway's own Gen-4 family; hosted partner models take none). */
export const takesSeed = (upstreamModel: string): boolean => upstreamModel.startsWith('gen4');

export type RunwayTask =
  | { status: 'PENDING' | 'THROTTLED' }
  | { status: 'CANCELLED' }
  | { status: 'RUNNING'; progress: number }
  | { status: 'SUCCEEDED'; output: string[] }
  | { status: 'FAILED'; failureCode: string | null };

/** A task as GET /v1/tasks/{id} answers it. */
export function taskOf(body: unknown): RunwayTask {
  if (!isObject(body)) throw invalidResponse('the task is not an object');
  switch (body.status) {
    case 'PENDING':
    case 'THROTTLED':
      return { status: body.status };
    case 'CANCELLED':
      return { status: 'CANCELLED' };
    case 'RUNNING': {
      const progress = typeof body.progress === 'number' && Number.isFinite(body.progress) ? Math.min(1, Math.max(0, body.progress)) : 0;
      return { status: 'RUNNING', progress };
    }
    case 'SUCCEEDED': {
      const output = Array.isArray(body.output) ? body.output.filter((url): url is string => typeof url === 'string' && /^https?:\/\//i.test(url)) : [];
      if (output.length === 0) throw invalidResponse('the finished task has no output URL');
      return { status: 'SUCCEEDED', output };
    }
    case 'FAILED':
      return { status: 'FAILED', failureCode: typeof body.failureCode === 'string' && body.failureCode !== '' ? body.failureCode : null };
    default:
      throw invalidResponse('the task has an unknown status');
  }
}

/** The id of a created task (a UUID at Runway). */
export function createdIdOf(body: unknown): string {
  const id = isObject(body) ? body.id : undefined;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw invalidResponse('the created task has no id');
  return id;
}

/** A task's progress as the gateway reports it (0-99 while running: 100 is the finished video). */
export const percent = (progress: number): number => Math.min(99, Math.round(progress * 100));

/** The API root of a base URL given with or without its /v1. */
export const apiRoot = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
