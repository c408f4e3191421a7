// Token usage of an image job, for providers that do not report it and for the amount held
// before a request runs: prompt tokens ~ characters / 4, image tokens one per 32x32 patch.
import type { TokenUsage } from '../billing/pricing.js';
import { sniffImage } from '../images/image-sniff.js';
import type { ImageEditJob, ImageJob } from './provider.js';

export const promptTokens = (prompt: string): number => Math.max(1, Math.ceil(prompt.length / 4));
export const imageTokens = (width: number, height: number): number => Math.ceil((width * height) / 1024);

export function estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage {
  const references = 'images' in job ? job.images : [];
  let input = promptTokens(job.prompt);
  for (const image of references) {
    const size = sniffImage(image.bytes);
    if (size) input += imageTokens(size.width, size.height);
  }
  let { width, height } = job;
  const first = references[0] ? sniffImage(references[0].bytes) : null;
  if (!job.sizeGiven && first) ({ width, height } = first);
  return { input_tokens: input, output_tokens: imageTokens(width, height) };
}
