/** editImage: apply a natural-language instruction to 1..n reference images with sharp. */
import { composeImages } from './edit-compose.js';
import { applyOp } from './edit-ops.js';
import { parseEditPrompt } from './edit-parse.js';
import { stylize } from './edit-stylize.js';
import { decodeImage, encodePng, fitWithinLimit, stage, type RawImage } from './raw-image.js';
import { EDIT_MAX_SIDE, EngineInputError, type EditImageInput, type EditResult } from './types.js';

/** More references than this is almost certainly a client bug, and costs memory. */
export const MAX_REFERENCE_IMAGES = 16;

function targetSide(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw new EngineInputError(`${name} must be a positive number, got ${String(value)}`);
  }
  return Math.min(EDIT_MAX_SIDE, Math.round(value));
}

export async function editImage(input: EditImageInput): Promise<EditResult> {
  const prompt = typeof input.prompt === 'string' ? input.prompt : '';
  if (!Array.isArray(input.images) || input.images.length === 0) throw new EngineInputError('at least one reference image is required');
  if (input.images.length > MAX_REFERENCE_IMAGES) throw new EngineInputError(`at most ${MAX_REFERENCE_IMAGES} reference images are supported`);
  const width = targetSide('width', input.width);
  const height = targetSide('height', input.height);

  const references = await Promise.all(input.images.map((buf, i) => decodeImage(buf, i)));
  const plan = parseEditPrompt(prompt);
  const operations: string[] = [];

  let img: RawImage = references[0]!;
  if (references.length > 1) {
    const mode = plan.compose ?? 'collage';
    img = await composeImages(references, mode);
    operations.push(mode);
  }
  for (const op of plan.ops) {
    img = await fitWithinLimit(await applyOp(img, op));
    operations.push(op.kind);
  }
  const understood = plan.ops.length > 0 || (references.length > 1 && plan.compose !== null);
  if (!understood) {
    img = await stylize(img, prompt);
    operations.push('stylize');
  }
  if (width !== undefined || height !== undefined) {
    const w = width;
    const h = height;
    if (w !== img.width || h !== img.height) img = await stage(img, (p) => p.resize(w ?? null, h ?? null, { fit: 'cover' }));
  }
  img = await fitWithinLimit(img);
  const png = await encodePng(img);
  return { png, width: img.width, height: img.height, operations, understood };
}
