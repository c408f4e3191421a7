import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ImageResult } from '../../../shared/api-types.js';
import type { Gateway } from '../../core/gateway.js';
import { parseUsd } from '../../core/billing/money.js';
import { invalid, isGatewayError } from '../../core/errors.js';
import type { ImageResultStream } from '../../core/images/image-service.js';
import { recordActivity } from '../activity-hook.js';
import { principalOf } from '../auth.js';
import type { RouteGuards } from '../route-guards.js';
import { readMultipartForm } from '../multipart-form.js';
import { IMAGE_EDIT_TEXT_FIELDS, ImageGenerationBody } from '../schemas.js';

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
      config: { contentType: 'application/json' },
      schema: { body: ImageGenerationBody },
    },
    async (request, reply) => {
      const activity: NonNullable<FastifyRequest['activity']> = { model: request.body.model };
      request.activity = activity;
      const cancel = new AbortController();
      const result = await gateway.images.generateStreamed(principalOf(request), { ...request.body, signal: cancel.signal });
      if (!('b64' in result)) {
        activity.costNano = parseUsd(result.usage.cost_usd) ?? 0;
        return sendImageResult(reply, result);
      }
      // A relay cut short (the client left, or the image broke) never reaches onResponse.
      reply.raw.once('close', () => {
        if (reply.raw.writableFinished) return;
        cancel.abort();
        activity.status ??= 499;
        recordActivity(gateway.activity, request, reply);
      });
      return reply.type('application/json; charset=utf-8').send(Readable.from(relayedBody(result, activity)));
    },
  );
}

/**
 * The same body as sendImageResult, written while the upstream image arrives. The status is
 * sent before the end is known: when the image breaks midway the connection is cut (Fastify
 * destroys the response), so a client never takes a broken image for a whole one.
 */
async function* relayedBody(result: ImageResultStream, activity: NonNullable<FastifyRequest['activity']>): AsyncGenerator<Buffer> {
  yield BODY_HEAD;
  try {
    yield* result.b64;
  } catch (error) {
    activity.status = isGatewayError(error) ? error.status : 500;
    throw error;
  }
  const cost = result.costUsd();
  activity.costNano = parseUsd(cost) ?? 0;
  yield Buffer.from(`"}],"usage":{"cost_usd":"${cost}"}}`);
}

const BODY_HEAD = Buffer.from('{"data":[{"b64_json":"');

/** Registered in the upload context, where the multipart parser lives. */
export function registerImageEditRoute(app: FastifyInstance, gateway: Gateway, guards: RouteGuards): void {
  app.post(
    '/v1/images/edits',
    { onRequest: guards.creation, config: { contentType: 'multipart/form-data' } },
    async (request, reply) => {
      const limits = await editLimits(gateway);
      const form = await readMultipartForm(request, {
        fileField: 'image',
        textFields: IMAGE_EDIT_TEXT_FIELDS,
        maxFileBytes: limits.maxFileBytes,
        maxFiles: limits.maxFiles,
        maxFieldBytes: MAX_FIELD_BYTES,
      });
      for (const name of ['model', 'prompt'] as const) {
        if (form.fields[name] === undefined) throw invalid(`Missing required field ${name}.`, name);
      }
      request.activity = { model: form.fields.model ?? '' };
      const result = await gateway.images.edit(principalOf(request), {
        model: form.fields.model ?? '',
        prompt: form.fields.prompt ?? '',
        ...(form.fields.size !== undefined ? { size: form.fields.size } : {}),
        images: form.files,
      });
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
    if (!record.capabilities.image_edit) continue;
    maxFileBytes = Math.max(maxFileBytes, record.capabilities.max_reference_image_bytes ?? 0);
    maxFiles = Math.max(maxFiles, record.capabilities.max_reference_images ?? 1);
  }
  return { maxFileBytes: maxFileBytes || DEFAULT_MAX_FILE_BYTES, maxFiles };
}
