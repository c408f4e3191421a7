// The built-in engine behind the provider interface: works offline and is the default.
import type { TokenUsage } from '../../billing/pricing.js';
import { GatewayError } from '../../errors.js';
import { estimateImageUsage, imageTokens, promptTokens } from '../image-usage.js';
import type { Logger } from '../../logger.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider } from '../provider.js';
import { LOCAL_PROVIDER_ID } from './local-models.js';

// The engine (and sharp behind it) loads on first use, so CLI commands and server start stay fast.
type ImageEngine = typeof import('../../../engine/images/index.js');
let engine: Promise<ImageEngine> | null = null;
const loadEngine = (): Promise<ImageEngine> => (engine ??= import('../../../engine/images/index.js'));

export class LocalImageProvider implements ImageProvider {
  readonly id = LOCAL_PROVIDER_ID;
  readonly kind = 'local';

  constructor(private readonly logger: Logger) {}

  estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage {
    return estimateImageUsage(job);
  }

  async generateImage(job: ImageJob): Promise<ImageOutcome> {
    const { generateImage, EngineInputError } = await loadEngine();
    job.signal?.throwIfAborted(); // the caller left: no work for no one (the render itself cannot stop)
    const image = await generateImage({ prompt: job.prompt, width: job.width, height: job.height }).catch((error: unknown) => {
      // A size the owner listed in supported_sizes but the engine cannot paint (over 1536 px).
      if (error instanceof EngineInputError) throw new GatewayError('invalid_request', error.message, 'size');
      throw error;
    });
    return {
      bytes: image.png,
      usage: { input_tokens: promptTokens(job.prompt), output_tokens: imageTokens(image.width, image.height) },
    };
  }

  async editImage(job: ImageEditJob): Promise<ImageOutcome> {
    const { editImage, EngineInputError } = await loadEngine();
    job.signal?.throwIfAborted();
    try {
      const result = await editImage({
        prompt: job.prompt,
        images: job.images.map((i) => i.bytes),
        ...(job.sizeGiven ? { width: job.width, height: job.height } : {}),
      });
      if (!result.understood) {
        this.logger.warn(
          { model: job.model.id, instruction: job.prompt.slice(0, 200), operations: result.operations },
          'local engine did not understand the edit instruction; applied a stylized grade instead',
        );
      }
      const estimate = this.estimateImageUsage(job);
      return {
        bytes: result.png,
        usage: { input_tokens: estimate.input_tokens, output_tokens: imageTokens(result.width, result.height) },
      };
    } catch (error) {
      if (error instanceof EngineInputError) {
        throw new GatewayError('invalid_request', `The reference images cannot be edited: ${error.message}`, 'image');
      }
      throw error;
    }
  }
}
