// Image generation and editing: validate against the live record, check access, hold the
// estimated cost, run the provider, check what came back, charge the real usage.
import type { ImageResult } from '../../../shared/api-types.js';
import { assertModelAccess, paysWithMoney } from '../access/access-policy.js';
import type { AccessGate } from '../access/access-gate.js';
import type { Principal } from '../access/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import { formatUsd } from '../billing/money.js';
import { tokenCostNano, type TokenUsage } from '../billing/pricing.js';
import type { CatalogEntry, CatalogService } from '../catalog/catalog-service.js';
import { GatewayError } from '../errors.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, ImageStreamOutcome, ReferenceImage } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { checkContextWindow, checkN, checkPrompt, checkReferenceImages, resolveImageModel, resolveSize } from './image-request.js';
import { checkImagesDecode } from './image-decode-check.js';
import { sniffImage } from './image-sniff.js';

export interface GenerateImageRequest {
  model: string;
  prompt: string;
  size?: string;
  n?: number;
  /** Ends the work early: the caller went away. */
  signal?: AbortSignal;
  /** Hears an engine's progress (0-100) while it works. */
  onProgress?: (percent: number) => void;
}

export interface EditImageRequest {
  model: string;
  prompt: string;
  size?: string;
  images: ReferenceImage[];
  /** Ends the work early: the caller went away. */
  signal?: AbortSignal;
  /** Hears an engine's progress (0-100) while it works. */
  onProgress?: (percent: number) => void;
}

export class ImageService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly providers: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly access: AccessGate,
  ) {}

  async generate(principal: Principal, request: GenerateImageRequest, keep?: KeepImage): Promise<ImageResult> {
    const { entry, job, provider, estimate } = await this.generationJob(principal, request);
    return this.billed(principal, entry, estimate, job.signal, () => provider.generateImage(job), keep);
  }

  /**
   * generate() for the HTTP door: a large upstream image comes back as a stream that relays its
   * base64 as it arrives. The hold ends when the stream does: charged once it has ended whole
   * and checked, released when it breaks or is abandoned. A small image comes back whole.
   */
  async generateStreamed(principal: Principal, request: GenerateImageRequest): Promise<ImageResult | ImageResultStream> {
    const { entry, job, provider, estimate } = await this.generationJob(principal, request);
    const stream = provider.generateImageStream?.bind(provider);
    if (!stream) return this.billed(principal, entry, estimate, job.signal, () => provider.generateImage(job));
    const ticket = await this.open(principal, entry, estimate);
    let started: ImageStreamOutcome | null = null;
    try {
      started = await stream(job);
      job.signal?.throwIfAborted();
      checkImage(started.kind === 'whole' ? started.outcome.bytes : started.headBytes);
    } catch (error) {
      ticket.release();
      if (started?.kind === 'stream') await started.cancel();
      throw error;
    }
    if (started.kind === 'whole') return result(started.outcome, await ticket.charge(started.outcome.usage));
    return relayed(started, ticket);
  }

  private async generationJob(
    principal: Principal,
    request: GenerateImageRequest,
  ): Promise<{ entry: CatalogEntry; job: ImageJob; provider: ImageProvider; estimate: TokenUsage }> {
    const entry = await resolveImageModel(this.catalog, request.model, 'generation');
    checkPrompt(request.prompt, entry.record);
    checkN(request.n);
    const size = resolveSize(request.size, entry.record);
    assertModelAccess(principal, entry.record);
    const job = this.job(entry, request, size);
    const provider = await this.providers.image(entry.providerId);
    const estimate = provider.estimateImageUsage(job);
    checkContextWindow(entry.record, job.prompt, estimate);
    return { entry, job, provider, estimate };
  }

  async edit(principal: Principal, request: EditImageRequest, keep?: KeepImage): Promise<ImageResult> {
    const entry = await resolveImageModel(this.catalog, request.model, 'edit');
    checkPrompt(request.prompt, entry.record);
    const size = resolveSize(request.size, entry.record, 'edit');
    checkReferenceImages(request.images, entry.record);
    assertModelAccess(principal, entry.record);
    await checkImagesDecode(request.images);
    const job: ImageEditJob = { ...this.job(entry, request, size), images: request.images };
    const provider = await this.providers.image(entry.providerId);
    const estimate = provider.estimateImageUsage(job);
    checkContextWindow(entry.record, job.prompt, estimate);
    return this.billed(principal, entry, estimate, job.signal, () => provider.editImage(job), keep);
  }

  private job(entry: CatalogEntry, request: GenerateImageRequest | EditImageRequest, size: ReturnType<typeof resolveSize>): ImageJob {
    return {
      model: entry.record,
      upstreamModel: entry.upstreamModel,
      prompt: request.prompt,
      width: size.width,
      height: size.height,
      sizeGiven: size.given,
      workflow: entry.workflow,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    };
  }

  /**
   * Hold the estimate, run, then charge the reported usage; a failed run releases the hold, and
   * so does a caller that left meanwhile: it gets no image, so it pays nothing, even when the
   * provider (the built-in engine) finished the work regardless.
   */
  private async billed(
    principal: Principal,
    entry: CatalogEntry,
    estimate: TokenUsage,
    signal: AbortSignal | undefined,
    run: () => Promise<ImageOutcome>,
    keep?: KeepImage,
  ): Promise<ImageResult> {
    const ticket = await this.open(principal, entry, estimate);
    let outcome: ImageOutcome;
    try {
      outcome = await run();
      signal?.throwIfAborted();
      checkImage(outcome.bytes);
      await keep?.(outcome.bytes);
    } catch (error) {
      ticket.release();
      throw error;
    }
    return result(outcome, await ticket.charge(outcome.usage));
  }

  /**
   * Checks what the caller may spend and holds the estimate. The ticket's charge() writes the
   * real usage (a charge that cannot be written ends the hold uncharged and throws: no image
   * goes out) and records it against the key's daily counters.
   */
  private async open(principal: Principal, entry: CatalogEntry, estimate: TokenUsage): Promise<ImageTicket> {
    const pricing = entry.record.pricing;
    const paid = paysWithMoney(principal);
    // Callers who pay no money are bounded by daily tokens instead (held before any work).
    const releaseTokens = paid ? null : await this.access.reserveDailyTokens(principal, estimate.input_tokens + estimate.output_tokens);
    const hold = paid ? await this.billing.reserveRequest(principal.accountId, tokenCostNano(pricing, estimate), 'image', entry.record.id) : null;
    return {
      release: () => {
        releaseTokens?.();
        if (hold) this.billing.releaseRequest(hold);
      },
      charge: async (usage) => {
        try {
          const charged = hold ? ((await this.billing.consumeRequest(hold, tokenCostNano(pricing, usage))) ?? 0) : 0;
          this.access.record({
            principal: principal.keyId,
            model: entry.record.id,
            inputTokens: usage.input_tokens + (usage.cache_tokens ?? 0),
            outputTokens: usage.output_tokens,
            spendNano: charged,
          });
          return formatUsd(charged);
        } finally {
          // Recorded usage now counts instead of the estimate.
          releaseTokens?.();
        }
      },
    };
  }
}

/**
 * Stores the image before it is charged (the studio's gallery file): when that fails, the hold
 * is released and nothing is charged for an image no one gets.
 */
export type KeepImage = (bytes: Buffer) => Promise<void>;

interface ImageTicket {
  release(): void;
  /** Charges the usage; returns the cost as the API writes it. */
  charge(usage: TokenUsage): Promise<string>;
}

/** A generation relayed while it arrives: the base64 text in pieces, then its cost. */
export interface ImageResultStream {
  b64: AsyncIterable<Buffer>;
  /** The cost charged; known once b64 has been read to its end. */
  costUsd(): string;
}

function checkImage(bytes: Buffer): void {
  if (!sniffImage(bytes)) throw new GatewayError('upstream_invalid_response', 'The provider returned data that is not an image.');
}

function result(outcome: ImageOutcome, costUsd: string): ImageResult {
  return { data: [{ b64_json: outcome.b64 ?? outcome.bytes.toString('base64') }], usage: { cost_usd: costUsd } };
}

function relayed(started: Extract<ImageStreamOutcome, { kind: 'stream' }>, ticket: ImageTicket): ImageResultStream {
  let cost: string | null = null;
  async function* pieces(): AsyncGenerator<Buffer> {
    try {
      yield* started.b64;
      cost = await ticket.charge(started.usage());
    } finally {
      // Broken upstream, unusable tail, or a client that went away: nothing is charged.
      if (cost === null) ticket.release();
    }
  }
  return {
    b64: pieces(),
    costUsd: () => {
      if (cost === null) throw new Error('costUsd() before the image was read to its end');
      return cost;
    },
  };
}
