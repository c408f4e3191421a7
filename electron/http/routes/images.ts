import { once } from 'node:events';
import { newTrace } from '../../core/routing/failover.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ImageResult } from '../../../shared/api-types.js';
import type { Gateway } from '../../core/gateway.js';
import { parseUsd } from '../../core/billing/money.js';
import { countOr } from '../../core/catalog/capability-read.js';
import { invalid, isGatewayError } from '../../core/errors.js';
import type { ImageResultStream } from '../../core/images/image-service.js';
import { supportsImageOperation } from '../../core/catalog/model-capabilities.js';
import { principalOf } from '../auth.js';
import type { RouteGuards } from '../route-guards.js';
import { readMultipartForm } from '../multipart-form.js';
import type { UploadBudget } from '../upload-budget.js';
import type { ErrorCode } from '../../core/errors.js';
import { IMAGE_EDIT_TEXT_FIELDS, ImageEditForm, ImageGenerationBody, ImageResult as ImageResultSchema } from '../schemas.js';

/** What an image creation may answer besides the errors of every bearer route. */
const IMAGE_ERRORS: readonly ErrorCode[] = [
  'insufficient_balance',
  'request_too_large',
  'upstream_bad_request',
  'upstream_rate_limited',
  'upstream_invalid_response',
  'upstream_unavailable',
];
const IMAGE_ANSWER = { 200: { description: 'The image, base64, and what it cost.', schema: ImageResultSchema } };

const JSON_BODY_LIMIT = 1024 * 1024;
/** Hard streaming cap per file when no catalog model declares its own limit. */
const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_FIELD_BYTES = 256 * 1024;

export function registerImageGenerationRoute(app: FastifyInstance, gateway: Gateway, guards: RouteGuards): void {
  app.post<{ Body: ImageGenerationBody }>(
    '/v1/images/generations',
    {
      onRequest: guards.creation,
      bodyLimit: JSON_BODY_LIMIT,
      config: {
        contentType: 'application/json',
        openapi: { operationId: 'createImage', summary: 'Generate an image', auth: 'bearer', responses: IMAGE_ANSWER, errors: IMAGE_ERRORS },
      },
      schema: { body: ImageGenerationBody },
    },
    async (request, reply) => {
      const activity: NonNullable<FastifyRequest['activity']> = { model: request.body.model, routes: newTrace() };
      request.activity = activity;
      const cancel = cancelOnDeparture(reply);
      const restoreIdle = liftIdleTimeout(reply);
      const result = await gateway.images.generateStreamed(principalOf(request), { ...request.body, signal: cancel.signal, trace: activity.routes! }).finally(restoreIdle);
      if (!('b64' in result)) {
        activity.costNano = parseUsd(result.usage.cost_usd) ?? 0;
        return sendImageResult(reply, result);
      }
      relay(reply, result, activity, cancel);
      return reply;
    },
  );
}

/**
 * A client that leaves before its answer is not charged: the upstream call stops and the hold
 * is released (the charge is written only once the image is in hand). Fastify's onRequestAbort
 * does not fire once the body has been read, so the response is watched instead (the activity
 * hook logs the departure).
 */
function cancelOnDeparture(reply: FastifyReply): AbortController {
  const cancel = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.abort();
  });
  return cancel;
}

/**
 * A generation may take as long as its provider's timeout (a local engine: minutes) with no byte
 * moving on the connection: its idle timeout is lifted while the gateway waits for the image, and
 * set back before the answer is written, so a client that stops reading is still cut. Returns the
 * restore.
 */
function liftIdleTimeout(reply: FastifyReply): () => void {
  const socket = reply.raw.socket;
  const idle = socket?.timeout ?? 0;
  if (!socket || idle <= 0) return () => undefined;
  socket.setTimeout(0);
  return () => {
    if (!socket.destroyed) socket.setTimeout(idle);
  };
}

/** Above this many unsent bytes the relay waits for the client to catch up. */
const RELAY_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * Writes the same body as sendImageResult while the upstream image arrives, straight to the
 * socket, letting up to 8 MB queue for a slow client (a pipe would stop at every piece: the
 * socket's mark is 16 KB). The status goes out before the end is known: when the image breaks
 * midway the connection is cut, so a client never takes a broken image for a whole one. The
 * cut is logged like the error boundary logs a 5xx.
 */
function relay(reply: FastifyReply, result: ImageResultStream, activity: NonNullable<FastifyRequest['activity']>, cancel: AbortController): void {
  reply.hijack();
  const res = reply.raw;
  // The activity hook logs the relay (onResponse when it finished, its close listener when it
  // was cut). A client that left has already ended the upstream call through the route's close
  // listener, and with it any wait for the client to drain.
  // The headers the hooks set (request id, rate limits) go out as Fastify would send them.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const write = coalescedWriter(res);
  write(BODY_HEAD);
  void (async () => {
    try {
      for await (const piece of result.b64) {
        if (res.destroyed) return;
        if (!write(piece) && res.writableLength > RELAY_BUFFER_BYTES) await once(res, 'drain', { signal: cancel.signal });
      }
      const cost = result.costUsd();
      activity.costNano = parseUsd(cost) ?? 0;
      res.end(`"}],"usage":{"cost_usd":"${cost}"}}`);
    } catch (error) {
      activity.status ??= isGatewayError(error) ? error.status : 500;
      if (!res.destroyed) {
        const detail = isGatewayError(error) ? { code: error.code, message: error.message } : { err: error };
        reply.log.warn({ ...detail, requestId: reply.request.id }, 'image relay cut midway');
      }
      res.destroy();
    }
  })();
}

/** A coalesced send is cut at this size, so the client starts reading early. */
const COALESCE_BYTES = 1024 * 1024;

/**
 * Pieces written in one event-loop turn leave in one send: the upstream arrives in 64 KB reads,
 * and passing each on as its own write costs the client a wakeup per piece.
 */
function coalescedWriter(res: FastifyReply['raw']): (piece: Buffer) => boolean {
  let corked = 0;
  const flush = () => {
    if (corked === 0) return;
    corked = 0;
    // end() uncorks fully; past it the socket may already carry the next response.
    if (!res.writableEnded) res.uncork();
  };
  return (piece) => {
    if (corked === 0) {
      res.cork();
      setImmediate(flush);
    }
    corked += piece.length;
    const room = res.write(piece);
    if (corked >= COALESCE_BYTES) flush();
    return room;
  };
}

const BODY_HEAD = Buffer.from('{"data":[{"b64_json":"');

/** Registered in the upload context, where the multipart parser lives. */
export function registerImageEditRoute(app: FastifyInstance, gateway: Gateway, guards: RouteGuards, budget: UploadBudget): void {
  app.post(
    '/v1/images/edits',
    {
      onRequest: guards.creation,
      config: {
        contentType: 'multipart/form-data',
        openapi: {
          operationId: 'editImage',
          summary: 'Edit images by instruction',
          auth: 'bearer',
          multipart: ImageEditForm,
          responses: IMAGE_ANSWER,
          errors: [...IMAGE_ERRORS, 'reference_image_too_large'],
        },
      },
    },
    async (request, reply) => {
      const limits = await editLimits(gateway);
      const form = await readMultipartForm(request, {
        fileField: 'image',
        textFields: IMAGE_EDIT_TEXT_FIELDS,
        maxFileBytes: limits.maxFileBytes,
        maxFiles: limits.maxFiles,
        maxFieldBytes: MAX_FIELD_BYTES,
        budget,
      });
      for (const name of ['model', 'prompt'] as const) {
        if (form.fields[name] === undefined) throw invalid(`Missing required field ${name}.`, name);
      }
      const trace = newTrace();
      request.activity = { model: form.fields.model ?? '', routes: trace };
      const restoreIdle = liftIdleTimeout(reply);
      const result = await gateway.images
        .edit(principalOf(request), {
          model: form.fields.model ?? '',
          prompt: form.fields.prompt ?? '',
          ...(form.fields.size !== undefined ? { size: form.fields.size } : {}),
          images: form.files,
          signal: cancelOnDeparture(reply).signal,
          trace,
        })
        .finally(restoreIdle);
      request.activity.costNano = parseUsd(result.usage.cost_usd) ?? 0;
      return sendImageResult(reply, result);
    },
  );
}

/**
 * The image result, serialized by hand: base64 and a decimal need no escaping, and skipping
 * JSON.stringify's scan of a multi-megabyte string matters for large images.
 */
function sendImageResult(reply: FastifyReply, result: ImageResult): FastifyReply {
  const body = `{"data":[{"b64_json":"${result.data[0].b64_json}"}],"usage":{"cost_usd":"${result.usage.cost_usd}"}}`;
  return reply.type('application/json; charset=utf-8').send(body);
}

/** The largest limits any edit-capable model declares: the per-model check happens after reading. */
async function editLimits(gateway: Gateway): Promise<{ maxFileBytes: number; maxFiles: number }> {
  let maxFileBytes = 0;
  let maxFiles = 1;
  for (const record of await gateway.catalog.list()) {
    if (!supportsImageOperation(record, 'edit')) continue;
    maxFileBytes = Math.max(maxFileBytes, countOr(record.capabilities.max_reference_image_bytes, 0));
    maxFiles = Math.max(maxFiles, countOr(record.capabilities.max_reference_images, 1));
  }
  return { maxFileBytes: maxFileBytes || DEFAULT_MAX_FILE_BYTES, maxFiles };
}
