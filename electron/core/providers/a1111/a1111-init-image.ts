// The one init image of an AUTOMATIC1111 / Forge edit, and the size an edit without a size gets.
//
// img2img makes one picture per init image: with batch_size 1, more than one init image is
// refused ("bad number of images passed", processing.py StableDiffusionProcessingImg2Img.init),
// and a larger batch would answer several pictures, not one made from several references. So
// several references are combined into one init image the way the gateway's built-in engine
// combines them by default (its collage: side by side, each scaled to the first one's height),
// and that one picture is what the engine edits.
import { GatewayError } from '../../errors.js';
import { sniffImage } from '../../images/image-sniff.js';
import type { ReferenceImage } from '../provider.js';

/** The longest side of an edit that keeps its init image's size (A1111's own UI maximum). */
export const MAX_EDIT_SIDE = 2048;

export interface InitImage {
  /** The image sent as init_images[0]. */
  bytes: Buffer;
  /** Its size as the engine will see it (EXIF orientation applied). */
  width: number;
  height: number;
}

/**
 * One reference is sent as it came (the engine applies its EXIF orientation itself, images.read
 * -> fix_image, and nothing is re-encoded). Several are turned by their EXIF orientation, as the
 * engine would turn each, put side by side and sent as one PNG.
 */
export async function initImageOf(references: readonly ReferenceImage[]): Promise<InitImage> {
  const [first] = references;
  if (!first) throw new Error('an edit without a reference image'); // the image service refuses those first
  if (references.length === 1) return { bytes: first.bytes, ...(await orientedSize(first.bytes)) };
  // Loaded on first use, as the built-in provider loads the engine: CLI commands and server start stay fast.
  const [{ composeImages }, { decodeImage, encodePng }] = await Promise.all([import('../../../engine/images/edit-compose.js'), import('../../../engine/images/raw-image.js')]);
  const decoded = await Promise.all(references.map((reference, index) => decodeImage(reference.bytes, index))).catch((error: unknown) => {
    // Checked decodable on arrival, so a guard only; the engine's message names the reference.
    throw new GatewayError('invalid_request', `The reference images cannot be combined: ${error instanceof Error ? error.message : String(error)}`, 'image');
  });
  const collage = await composeImages(decoded, 'collage');
  return { bytes: await encodePng(collage), width: collage.width, height: collage.height };
}

/**
 * The size of an edit that keeps its init image's: at most MAX_EDIT_SIDE on its longer side, in
 * multiples of 8 (the latent is an eighth of the image), at least 64.
 */
export function fitEditSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, MAX_EDIT_SIDE / Math.max(width, height));
  const fit = (side: number) => Math.max(64, Math.round((side * scale) / 8) * 8);
  return { width: fit(width), height: fit(height) };
}

/** editSize of one image's bytes, as the engine will see it (EXIF orientation applied). */
export async function editSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await orientedSize(bytes);
  return fitEditSize(width, height);
}

async function orientedSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const { default: sharp } = await import('sharp');
  try {
    const meta = await sharp(bytes).metadata();
    const turned = (meta.orientation ?? 1) >= 5;
    return { width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height };
  } catch {
    // Checked decodable before the job was made; the header is enough here.
    const sniffed = sniffImage(bytes);
    if (!sniffed) throw new Error('a reference image the gateway cannot read');
    return { width: sniffed.width, height: sniffed.height };
  }
}
