// The size an image job is made at, for the providers that fill sizes and ratios themselves. The
// gateway's rule (docs/api.md): an edit without a size keeps its first reference's size. The job
// then carries the model's default size, which is only right for a generation; read as the
// reference's, a template's {{width}}, {{height}}, {{aspect_ratio}} and {{ratio}} keep its shape.
import { sniffImage } from '../images/image-sniff.js';
import type { ImageJob, ReferenceImage } from './provider.js';

export function imageSize(job: Pick<ImageJob, 'width' | 'height' | 'sizeGiven'>, references: readonly Pick<ReferenceImage, 'bytes'>[]): { width: number; height: number } {
  // A reference the gateway cannot size (it was sniffed on arrival, so this is a guard only) falls back to the job's.
  const first = !job.sizeGiven && references[0] ? sniffImage(references[0].bytes) : null;
  return first ? { width: first.width, height: first.height } : { width: job.width, height: job.height };
}
