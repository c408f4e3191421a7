// OpenAI-compatible fake upstream on 127.0.0.1: models, images (generations, edits) and videos,
// with Bearer auth and fault injection.
// Docs followed: https://platform.openai.com/docs/api-reference/authentication (Bearer key; a bad
// key gets 401 {error: {type: 'invalid_request_error', code: 'invalid_api_key'}}),
// .../api-reference/models/list ({object: 'list', data: [{id, object: 'model', created,
// owned_by}]}), .../images and .../videos (see openai-images.ts, openai-videos.ts). Like the real
// API it refuses sizes a model does not render and parameters an endpoint does not take; image
// answers and downloads are streamed in chunks (http-kit `streamed`).
import type { IncomingMessage } from 'node:http';
import type { Emulator, UploadedFile } from './types.js';
import { startEmulatorServer, type RouteMatch } from './serve.js';
import { headerValue, json, streamed } from './http-kit.js';
import { openaiError } from './openai-errors.js';
import { IMAGE_MODELS, handleEdits, handleGenerations, type ImageFiles, type ImageSettings } from './openai-images.js';
import {
  VIDEO_MODELS,
  handleCreateVideo,
  handleDeleteVideo,
  handleListVideos,
  handleRetrieveVideo,
  handleVideoContent,
  DEFAULT_VIDEO_ERROR,
  type VideoBehaviour,
  type VideoError,
  type VideoStore,
  type VideoTask,
} from './openai-videos.js';

export interface OpenAIEmulatorOptions {
  apiKey?: string;
  /** queued -> in_progress -> completed takes this long (default 300 ms). */
  videoDurationMs?: number;
  /** New videos never complete. */
  stuckVideos?: boolean;
  /** New videos end as failed (true: a default error). */
  failVideos?: boolean | VideoError;
  /** Delay added to every image answer. */
  imageLatencyMs?: number;
  /** Return PNGs of exactly the requested size (default: longer side capped at 256 px). */
  exactSize?: boolean;
  /** Bytes of one second of a video download (default: a realistic bitrate for its size, see playableMp4). */
  videoBytesPerSecond?: number;
}

export interface OpenAIEmulator extends Emulator {
  /** Every video task by id (deleted ones stay, flagged `deleted`). */
  videos: Map<string, VideoTask>;
  /** Defaults for new video tasks; change them between tests. */
  videoBehaviour: VideoBehaviour;
  /** Ids passed to DELETE /v1/videos/:id, in order. */
  deleteCalls: string[];
  /** Image files (`image` / `image[]`) of the last /v1/images/edits request. */
  lastEditFiles: UploadedFile[];
  imageSettings: ImageSettings;
}

export const OPENAI_ROUTES = [
  'GET /v1/models',
  'GET /v1/models/:id',
  'POST /v1/images/generations',
  'POST /v1/images/edits',
  'POST /v1/videos',
  'GET /v1/videos',
  'GET /v1/videos/:id',
  'GET /v1/videos/:id/content',
  'DELETE /v1/videos/:id',
  'GET /images/:name',
] as const;

const MODELS = [
  ...IMAGE_MODELS.map((id) => ({ id, object: 'model', created: 1_745_000_000, owned_by: 'system' })),
  ...VIDEO_MODELS.map((id) => ({ id, object: 'model', created: 1_759_000_000, owned_by: 'system' })),
];

function authorize(apiKey: string, req: IncomingMessage) {
  const header = headerValue(req, 'authorization');
  if (!header) {
    return openaiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      { code: null },
    );
  }
  const match = /^Bearer (.+)$/.exec(header);
  if (match?.[1] === apiKey) return undefined;
  const presented = match?.[1] ?? '';
  // Like the real API: only the last 4 characters of the presented key are echoed.
  const masked = presented.length > 4 ? `${presented.slice(0, 3)}****${presented.slice(-4)}` : '****';
  return openaiError(401, `Incorrect API key provided: ${masked}.`, { code: 'invalid_api_key' });
}

export async function startOpenAIEmulator(options: OpenAIEmulatorOptions = {}): Promise<OpenAIEmulator> {
  const apiKey = options.apiKey ?? 'sk-emulator-openai';
  const store: VideoStore = {
    videos: new Map(),
    deleteCalls: [],
    behaviour: {
      durationMs: options.videoDurationMs ?? 300,
      stuck: options.stuckVideos ?? false,
      fail: options.failVideos === true ? DEFAULT_VIDEO_ERROR : (options.failVideos ?? false),
    },
  };
  const imageSettings: ImageSettings = { exactSize: options.exactSize ?? false, maxSide: 256, latencyMs: options.imageLatencyMs ?? 0 };
  const state = { lastEditFiles: [] as UploadedFile[] };
  const imageFiles: ImageFiles = new Map();

  function resolve(method: string, pathname: string): RouteMatch | undefined {
    const key = `${method} ${pathname}`;
    if (key === 'GET /v1/models') return { route: key, handle: () => json(200, { object: 'list', data: MODELS }) };
    if (key === 'POST /v1/images/generations') return { route: key, handle: (ctx) => handleGenerations(ctx, imageSettings, imageFiles) };
    if (key === 'POST /v1/images/edits') {
      return { route: key, handle: (ctx) => handleEdits(ctx, imageSettings, imageFiles, (files) => (state.lastEditFiles = files)) };
    }
    if (key === 'POST /v1/videos') return { route: key, handle: (ctx) => handleCreateVideo(ctx, store) };
    if (key === 'GET /v1/videos') return { route: key, handle: (ctx) => handleListVideos(ctx, store) };
    const imageFile = /^\/images\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && imageFile?.[1]) {
      const found = imageFiles.get(decodeURIComponent(imageFile[1]));
      const reply = found ? streamed({ status: 200, headers: { 'content-type': 'image/png' }, body: found }) : openaiError(404, 'Not found', { code: null });
      return { route: 'GET /images/:name', public: true, handle: () => reply };
    }
    const model = /^\/v1\/models\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && model?.[1]) {
      const id = decodeURIComponent(model[1]);
      return {
        route: 'GET /v1/models/:id',
        handle: () => {
          const found = MODELS.find((entry) => entry.id === id);
          return found ? json(200, found) : openaiError(404, `The model '${id}' does not exist`, { code: 'model_not_found', param: 'model' });
        },
      };
    }
    const video = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(pathname);
    const id = video?.[1] ? decodeURIComponent(video[1]) : undefined;
    if (!video || !id) return undefined;
    if (video[2] && method === 'GET') return { route: 'GET /v1/videos/:id/content', handle: (ctx) => handleVideoContent(ctx, store, id, options.videoBytesPerSecond) };
    if (video[2]) return undefined;
    if (method === 'GET') return { route: 'GET /v1/videos/:id', handle: () => handleRetrieveVideo(store, id) };
    if (method === 'DELETE') return { route: 'DELETE /v1/videos/:id', handle: () => handleDeleteVideo(store, id) };
    return undefined;
  }

  const server = await startEmulatorServer({
    knownRoutes: OPENAI_ROUTES,
    resolve,
    // The real API answers unknown paths with 404 "Invalid URL (METHOD /path)".
    notFound: (method, pathname) => openaiError(404, `Invalid URL (${method} ${pathname})`, { code: null }),
    authorize: (req) => authorize(apiKey, req),
    errorReply: (status, message) => openaiError(status, message),
  });

  return {
    baseUrl: `${server.origin}/v1`,
    origin: server.origin,
    apiKey,
    routes: OPENAI_ROUTES,
    requests: server.requests,
    videos: store.videos,
    videoBehaviour: store.behaviour,
    deleteCalls: store.deleteCalls,
    get lastEditFiles() {
      return state.lastEditFiles;
    },
    imageSettings,
    inject: (route, fault) => server.faults.inject(route, fault),
    clearFaults: () => server.faults.clear(),
    close: () => server.close(),
  };
}
