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
import { estimateImageUsage } from '../providers/image-usage.js';
import type { Failover, RouteTrace } from '../routing/failover.js';
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
  /** Filled with what the model's routes did (the activity log's). */
  trace?: RouteTrace;
}

export interface EditImageRequest extends Omit<GenerateImageRequest, 'n'> {
  images: ReferenceImage[];
}

/** A checked request, ready for its routes: the job each route gets (its own model name and workflow filled in), and the hold. */
interface ImagePlan {
  entry: CatalogEntry;
  job: ImageJob | ImageEditJob;
  /** The route's adapters, or why one cannot be had (tried as a failed route). */
  providers: Map<string, ImageProvider | GatewayError>;
  estimate: TokenUsage;
  request: GenerateImageRequest | EditImageRequest;
}

type Run<T> = (provider: ImageProvider, job: ImageJob) => Promise<T>;

export class ImageService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly providers: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly access: AccessGate,
    private readonly failover: Failover,
  ) {}

  async generate(principal: Principal, request: GenerateImageRequest, keep?: KeepImage): Promise<ImageResult> {
    const plan = await this.generationPlan(principal, request);
    return this.billed(principal, plan, (provider, job) => provider.generateImage(job), keep);
  }

  /**
   * generate() for the HTTP door: a large upstream image comes back as a stream that relays its
   * base64 as it arrives. The hold ends when the stream does: charged once it has ended whole
   * and checked, released when it breaks or is abandoned. A small image comes back whole. Once
   * a stream has started, the image is the serving route's: nothing is tried elsewhere.
   */
  async generateStreamed(principal: Principal, request: GenerateImageRequest): Promise<ImageResult | ImageResultStream> {
    const plan = await this.generationPlan(principal, request);
    const ticket = await this.open(principal, plan.entry, plan.estimate);
    let started: ImageStreamOutcome | null = null;
    try {
      started = await this.routed(plan, async (provider, job): Promise<ImageStreamOutcome> => {
        const stream = provider.generateImageStream?.bind(provider);
        const outcome: ImageStreamOutcome = stream ? await stream(job) : { kind: 'whole', outcome: await provider.generateImage(job) };
        try {
          job.signal?.throwIfAborted();
          checkImage(outcome.kind === 'whole' ? outcome.outcome.bytes : outcome.headBytes);
        } catch (error) {
          if (outcome.kind === 'stream') await outcome.cancel();
          throw error;
        }
        return outcome;
      });
      request.signal?.throwIfAborted();
    } catch (error) {
      await ticket.release();
      if (started?.kind === 'stream') await started.cancel();
      throw error;
    }
    if (started.kind === 'whole') return result(started.outcome, await ticket.charge(started.outcome.usage));
    return relayed(started, ticket);
  }

  private async generationPlan(principal: Principal, request: GenerateImageRequest): Promise<ImagePlan> {
    const entry = await resolveImageModel(this.catalog, request.model, 'generation');
    checkPrompt(request.prompt, entry.record);
    checkN(request.n);
    const size = resolveSize(request.size, entry.record);
    assertModelAccess(principal, entry.record);
    return this.plan(entry, this.job(entry, request, size), request);
  }

  async edit(principal: Principal, request: EditImageRequest, keep?: KeepImage): Promise<ImageResult> {
    const entry = await resolveImageModel(this.catalog, request.model, 'edit');
    checkPrompt(request.prompt, entry.record);
    const size = resolveSize(request.size, entry.record, 'edit');
    checkReferenceImages(request.images, entry.record);
    assertModelAccess(principal, entry.record);
    await checkImagesDecode(request.images);
    const job: ImageEditJob = { ...this.job(entry, request, size), images: request.images };
    const plan = await this.plan(entry, job, request);
    return this.billed(principal, plan, (provider, routeJob) => provider.editImage(routeJob as ImageEditJob), keep);
  }

  /** The routes' adapters and the hold: the largest estimate among them, so whichever serves is covered. */
  private async plan(entry: CatalogEntry, job: ImageJob | ImageEditJob, request: GenerateImageRequest | EditImageRequest): Promise<ImagePlan> {
    const providers = new Map<string, ImageProvider | GatewayError>();
    for (const route of entry.routes) {
      if (providers.has(route.providerId)) continue;
      providers.set(
        route.providerId,
        await this.providers.image(route.providerId).catch((error: unknown) => {
          if (error instanceof GatewayError) return error;
          throw error;
        }),
      );
    }
    const estimates = [...providers.values()].filter((p): p is ImageProvider => !(p instanceof GatewayError)).map((p) => p.estimateImageUsage(job));
    const cost = (usage: TokenUsage) => tokenCostNano(entry.record.pricing, usage);
    // No adapter to ask (every route's provider is unusable): the shared formula, for a hold the failure then releases.
    const estimate = estimates.length === 0 ? estimateImageUsage(job) : estimates.reduce((a, b) => (cost(b) > cost(a) ? b : a));
    checkContextWindow(entry.record, job.prompt, estimate);
    return { entry, job, providers, estimate, request };
  }

  private job(entry: CatalogEntry, request: GenerateImageRequest | EditImageRequest, size: ReturnType<typeof resolveSize>): ImageJob {
    const primary = entry.routes[0]!;
    return {
      model: entry.record,
      upstreamModel: primary.upstreamModel,
      prompt: request.prompt,
      width: size.width,
      height: size.height,
      sizeGiven: size.given,
      workflow: primary.workflow,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    };
  }

  /**
   * Runs the job on the model's routes in order (routing/failover.ts), each with its own model
   * name and workflow, within the time of the first route's provider.
   */
  private routed<T>(plan: ImagePlan, run: Run<T>): Promise<T> {
    // The first route that can be called sets the budget (one not configured can use none of it).
    const primary = plan.entry.routes.map((route) => plan.providers.get(route.providerId)).find((p) => p !== undefined && !(p instanceof GatewayError));
    const budgetMs = primary instanceof GatewayError ? undefined : primary?.imageTimeoutMs;
    return this.failover.run(
      plan.entry.routes,
      async ({ route, timeoutMs, accepted }) => {
        const provider = plan.providers.get(route.providerId);
        if (provider === undefined || provider instanceof GatewayError) throw provider;
        const job = {
          ...plan.job,
          upstreamModel: route.upstreamModel,
          workflow: route.workflow,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          onAccepted: accepted,
        };
        return run(provider, job);
      },
      { ...(plan.request.trace ? { trace: plan.request.trace } : {}), ...(budgetMs !== undefined ? { budgetMs } : {}), ...(plan.request.signal ? { signal: plan.request.signal } : {}) },
    );
  }

  /**
   * Hold the estimate, run, then charge the reported usage; a failed run releases the hold, and
   * so does a caller that left meanwhile: it gets no image, so it pays nothing, even when the
   * provider (the built-in engine) finished the work regardless.
   */
  private async billed(principal: Principal, plan: ImagePlan, run: Run<ImageOutcome>, keep?: KeepImage): Promise<ImageResult> {
    const ticket = await this.open(principal, plan.entry, plan.estimate);
    let outcome: ImageOutcome;
    try {
      outcome = await this.routed(plan, run);
      plan.request.signal?.throwIfAborted();
      checkImage(outcome.bytes);
      await keep?.(outcome.bytes);
    } catch (error) {
      await ticket.release();
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
      release: async () => {
        await releaseTokens?.();
        if (hold) await this.billing.releaseRequest(hold);
      },
      charge: async (usage) => {
        let usedTokens = 0;
        try {
          const charged = hold ? ((await this.billing.consumeRequest(hold, tokenCostNano(pricing, usage))) ?? 0) : 0;
          this.access.record({
            principal: principal.keyId,
            model: entry.record.id,
            inputTokens: usage.input_tokens + (usage.cache_tokens ?? 0),
            outputTokens: usage.output_tokens,
            spendNano: charged,
          });
          usedTokens = usage.input_tokens + (usage.cache_tokens ?? 0) + usage.output_tokens;
          return formatUsd(charged);
        } finally {
          // Recorded usage now counts instead of the estimate.
          await releaseTokens?.(usedTokens);
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
  /** Ends the hold uncharged (a write in team mode, which never throws: it is retried). */
  release(): Promise<void>;
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
      if (cost === null) await ticket.release();
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
