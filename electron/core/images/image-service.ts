// Image generation and editing: validate against the live record, check access, hold the
// estimated cost, run the provider, check what came back, charge the real usage.
import type { ImageResult } from '../../../shared/api-types.js';
import { assertModelAccess, paysWithMoney } from '../access/access-policy.js';
import type { AccessGate } from '../access/access-gate.js';
import type { Principal } from '../access/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import { formatUsd } from '../billing/money.js';
import { tokenCostNano } from '../billing/pricing.js';
import type { CatalogEntry, CatalogService } from '../catalog/catalog-service.js';
import { GatewayError } from '../errors.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ReferenceImage } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { checkN, checkPrompt, checkReferenceImages, resolveImageModel, resolveSize } from './image-request.js';
import { sniffImage } from './image-sniff.js';

export interface GenerateImageRequest {
  model: string;
  prompt: string;
  size?: string;
  n?: number;
}

export interface EditImageRequest {
  model: string;
  prompt: string;
  size?: string;
  images: ReferenceImage[];
}

export class ImageService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly providers: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly access: AccessGate,
  ) {}

  async generate(principal: Principal, request: GenerateImageRequest): Promise<ImageResult> {
    const entry = await resolveImageModel(this.catalog, request.model, 'generation');
    checkPrompt(request.prompt, entry.record);
    checkN(request.n);
    const size = resolveSize(request.size, entry.record);
    assertModelAccess(principal, entry.record);
    const job: ImageJob = this.job(entry, request.prompt, size);
    const provider = await this.providers.image(entry.providerId);
    return this.billed(principal, entry, provider.estimateImageUsage(job), () => provider.generateImage(job));
  }

  async edit(principal: Principal, request: EditImageRequest): Promise<ImageResult> {
    const entry = await resolveImageModel(this.catalog, request.model, 'edit');
    checkPrompt(request.prompt, entry.record);
    const size = resolveSize(request.size, entry.record);
    checkReferenceImages(request.images, entry.record);
    assertModelAccess(principal, entry.record);
    const job: ImageEditJob = { ...this.job(entry, request.prompt, size), images: request.images };
    const provider = await this.providers.image(entry.providerId);
    return this.billed(principal, entry, provider.estimateImageUsage(job), () => provider.editImage(job));
  }

  private job(entry: CatalogEntry, prompt: string, size: ReturnType<typeof resolveSize>): ImageJob {
    return {
      model: entry.record,
      upstreamModel: entry.upstreamModel,
      prompt,
      width: size.width,
      height: size.height,
      sizeGiven: size.given,
    };
  }

  /** Hold the estimate, run, then charge the reported usage; a failed run releases the hold. */
  private async billed(
    principal: Principal,
    entry: CatalogEntry,
    estimate: ImageOutcome['usage'],
    run: () => Promise<ImageOutcome>,
  ): Promise<ImageResult> {
    const pricing = entry.record.pricing;
    const paid = paysWithMoney(principal);
    // Callers who pay no money are bounded by daily tokens instead (checked before any work).
    if (!paid) await this.access.checkDailyTokens(principal, estimate.input_tokens + estimate.output_tokens);
    const hold = paid ? await this.billing.reserveRequest(principal.accountId, tokenCostNano(pricing, estimate), 'image', entry.record.id) : null;
    let outcome: ImageOutcome;
    try {
      outcome = await run();
      if (!sniffImage(outcome.bytes)) {
        throw new GatewayError('upstream_invalid_response', 'The provider returned data that is not an image.');
      }
    } catch (error) {
      if (hold) this.billing.releaseRequest(hold);
      throw error;
    }
    // A charge that cannot be written (storage trouble) ends the hold uncharged: no image goes out.
    const charged = hold ? ((await this.billing.consumeRequest(hold, tokenCostNano(pricing, outcome.usage))) ?? 0) : 0;
    this.access.record({
      principal: principal.keyId,
      model: entry.record.id,
      inputTokens: outcome.usage.input_tokens + (outcome.usage.cache_tokens ?? 0),
      outputTokens: outcome.usage.output_tokens,
      spendNano: charged,
    });
    return { data: [{ b64_json: outcome.b64 ?? outcome.bytes.toString('base64') }], usage: { cost_usd: formatUsd(charged) } };
  }
}
