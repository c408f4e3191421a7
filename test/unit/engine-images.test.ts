import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { editImage, EngineInputError, generateImage, parseEditPrompt } from '../../electron/engine/images/index.js';

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

async function decode(png: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function pixel(img: Decoded, x: number, y: number): number[] {
  const i = (y * img.width + x) * img.channels;
  return Array.from(img.data.subarray(i, i + img.channels));
}

function meanRgb(img: Decoded): [number, number, number] {
  const sum = [0, 0, 0];
  const n = img.width * img.height;
  for (let p = 0; p < n; p++) {
    for (let c = 0; c < 3; c++) sum[c]! += img.data[p * img.channels + c]!;
  }
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

/** Mean per-pixel Euclidean RGB distance between two same-sized images. */
function meanDistance(a: Decoded, b: Decoded): number {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let total = 0;
  const n = a.width * a.height;
  for (let p = 0; p < n; p++) {
    let d2 = 0;
    for (let c = 0; c < 3; c++) {
      const d = a.data[p * a.channels + c]! - b.data[p * b.channels + c]!;
      d2 += d * d;
    }
    total += Math.sqrt(d2);
  }
  return total / n;
}

function lumaStdDev(img: Decoded): number {
  const n = img.width * img.height;
  let sum = 0;
  let sq = 0;
  for (let p = 0; p < n; p++) {
    const i = p * img.channels;
    const l = 0.2126 * img.data[i]! + 0.7152 * img.data[i + 1]! + 0.0722 * img.data[i + 2]!;
    sum += l;
    sq += l * l;
  }
  const mean = sum / n;
  return Math.sqrt(sq / n - mean * mean);
}

/** Synthetic RGB image: a colourful gradient with a pure red 4x4 marker in the top-left corner. */
async function synthetic(width = 64, height = 48, format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const marker = x < 4 && y < 4;
      data[i] = marker ? 255 : Math.round((x / width) * 200);
      data[i + 1] = marker ? 0 : Math.round((y / height) * 200) + 30;
      data[i + 2] = marker ? 0 : 180;
    }
  }
  const img = sharp(data, { raw: { width, height, channels: 3 } });
  if (format === 'jpeg') return img.jpeg({ quality: 95 }).toBuffer();
  if (format === 'webp') return img.webp({ lossless: true }).toBuffer();
  return img.png().toBuffer();
}

async function solid(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();
}

function isRed(p: number[]): boolean {
  return p[0]! > 200 && p[1]! < 60 && p[2]! < 60;
}

describe('generateImage', () => {
  const sizes: [number, number][] = [
    [64, 64],
    [256, 256],
    [512, 512],
    [1024, 1024],
    [1024, 1536],
    [1536, 1024],
    [100, 70],
  ];

  it.each(sizes)('produces a valid 8-bit RGB PNG of exactly %ix%i', async (width, height) => {
    const out = await generateImage({ prompt: 'a sunset over the mountains', width, height });
    expect(out.width).toBe(width);
    expect(out.height).toBe(height);
    const meta = await sharp(out.png).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([width, height]);
    expect(meta.channels).toBe(3);
    expect(meta.depth).toBe('uchar');
    const img = await decode(out.png);
    expect(img.data.length).toBe(width * height * 3);
    // Not a flat fill: there is real structure in the picture.
    expect(lumaStdDev(img)).toBeGreaterThan(8);
  });

  it('is deterministic for the same prompt, size and seed', async () => {
    const a = await generateImage({ prompt: 'ocean waves at noon', width: 256, height: 256 });
    const b = await generateImage({ prompt: 'ocean waves at noon', width: 256, height: 256 });
    expect(a.png.equals(b.png)).toBe(true);
    const c = await generateImage({ prompt: 'ocean waves at noon', width: 256, height: 256, seed: 7 });
    const d = await generateImage({ prompt: 'ocean waves at noon', width: 256, height: 256, seed: 7 });
    expect(c.png.equals(d.png)).toBe(true);
  });

  it('changes the picture when the seed changes', async () => {
    const a = await generateImage({ prompt: 'mountain lake', width: 256, height: 256, seed: 1 });
    const b = await generateImage({ prompt: 'mountain lake', width: 256, height: 256, seed: 2 });
    expect(a.png.equals(b.png)).toBe(false);
    expect(meanDistance(await decode(a.png), await decode(b.png))).toBeGreaterThan(5);
  });

  it('makes different prompts look clearly different', async () => {
    const prompts = ['a sunset over the mountains', 'ocean waves', 'neon cyberpunk city', 'pine forest', 'galaxy nebula in space', 'desert dunes', 'a cat on a sofa'];
    const images = await Promise.all(prompts.map(async (prompt) => decode((await generateImage({ prompt, width: 128, height: 128 })).png)));
    for (let i = 0; i < images.length; i++) {
      for (let j = i + 1; j < images.length; j++) {
        expect(meanDistance(images[i]!, images[j]!), `${prompts[i]} vs ${prompts[j]}`).toBeGreaterThan(25);
      }
    }
  });

  it('paints a sunset warmer than an ocean', async () => {
    const sunset = meanRgb(await decode((await generateImage({ prompt: 'sunset', width: 256, height: 256 })).png));
    const ocean = meanRgb(await decode((await generateImage({ prompt: 'ocean', width: 256, height: 256 })).png));
    expect(sunset[0]).toBeGreaterThan(sunset[2]);
    expect(ocean[2]).toBeGreaterThan(ocean[0]);
    expect(sunset[0] - sunset[2]).toBeGreaterThan(ocean[0] - ocean[2] + 40);
  });

  it('paints night scenes darker than snowy daytime scenes', async () => {
    const night = meanRgb(await decode((await generateImage({ prompt: 'starry night sky', width: 256, height: 256 })).png));
    const snow = meanRgb(await decode((await generateImage({ prompt: 'snowy winter morning', width: 256, height: 256 })).png));
    const luma = (c: [number, number, number]): number => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    expect(luma(snow) - luma(night)).toBeGreaterThan(60);
  });

  it('rejects sizes outside 64..1536 and non-integers', async () => {
    await expect(generateImage({ prompt: 'x', width: 32, height: 256 })).rejects.toBeInstanceOf(EngineInputError);
    await expect(generateImage({ prompt: 'x', width: 256, height: 2048 })).rejects.toBeInstanceOf(EngineInputError);
    await expect(generateImage({ prompt: 'x', width: 256.5, height: 256 })).rejects.toBeInstanceOf(EngineInputError);
    await expect(generateImage({ prompt: 'x', width: 256, height: 256, seed: Number.NaN })).rejects.toBeInstanceOf(EngineInputError);
  });
});

describe('parseEditPrompt', () => {
  it('keeps operations in prompt order and reads parameters', () => {
    const plan = parseEditPrompt('Blur 5, then make it black and white and rotate left');
    expect(plan.ops).toEqual([{ kind: 'blur', sigma: 5 }, { kind: 'grayscale' }, { kind: 'rotate', angle: 270 }]);
    expect(parseEditPrompt('rotate 45 degrees').ops).toEqual([{ kind: 'rotate', angle: 45 }]);
    expect(parseEditPrompt('rotate right').ops).toEqual([{ kind: 'rotate', angle: 90 }]);
    expect(parseEditPrompt('flip horizontally').ops).toEqual([{ kind: 'mirror' }]);
    expect(parseEditPrompt('flip it').ops).toEqual([{ kind: 'flip' }]);
    expect(parseEditPrompt('scale 50%').ops).toEqual([{ kind: 'resize', spec: { type: 'scale', factor: 0.5 } }]);
    expect(parseEditPrompt('resize to 512x256').ops).toEqual([{ kind: 'resize', spec: { type: 'exact', width: 512, height: 256 } }]);
    expect(parseEditPrompt('please blend them').compose).toBe('blend');
    expect(parseEditPrompt('paint a dragon on it').ops).toEqual([]);
  });

  it('reads colour tints only where the words ask for one', () => {
    const tints = (prompt: string) => parseEditPrompt(prompt).ops;
    expect(tints('make it green')).toEqual([{ kind: 'tint', colour: 'green' }]);
    expect(tints('Make the image golden')).toEqual([{ kind: 'tint', colour: 'gold' }]);
    expect(tints('turn it blue')).toEqual([{ kind: 'tint', colour: 'blue' }]);
    expect(tints('color it violet and blur 2')).toEqual([{ kind: 'tint', colour: 'purple' }, { kind: 'blur', sigma: 2 }]);
    expect(tints('a pinkish tint')).toEqual([{ kind: 'tint', colour: 'pink' }]);
    expect(tints('warmer')).toEqual([{ kind: 'tint', colour: 'warm' }]);
    expect(tints('cool it down')).toEqual([{ kind: 'tint', colour: 'cool' }]);
    // A colour that describes something else, and "turn" as a rotation, are not tints.
    expect(tints('add a red hat')).toEqual([]);
    expect(tints('a cool idea')).toEqual([]);
    expect(tints('turn it left')).toEqual([{ kind: 'rotate', angle: 270 }]);
  });
});

describe('editImage', () => {
  it('grayscale makes every pixel neutral but keeps the structure', async () => {
    const out = await editImage({ prompt: 'make it grayscale', images: [await synthetic()] });
    expect(out.understood).toBe(true);
    expect(out.operations).toEqual(['grayscale']);
    const img = await decode(out.png);
    for (let p = 0; p < img.width * img.height; p++) {
      const i = p * img.channels;
      expect(img.data[i]).toBe(img.data[i + 1]);
      expect(img.data[i + 1]).toBe(img.data[i + 2]);
    }
    expect(lumaStdDev(img)).toBeGreaterThan(10);
  });

  it('invert flips every channel value', async () => {
    const input = await synthetic();
    const before = await decode(input);
    const out = await editImage({ prompt: 'Invert the colors', images: [input] });
    expect(out.operations).toEqual(['negate']);
    const after = await decode(out.png);
    expect(after.data.length).toBe(before.data.length);
    for (let i = 0; i < before.data.length; i++) expect(after.data[i]).toBe(255 - before.data[i]!);
  });

  it('rotate 90 swaps the dimensions and moves the marker clockwise', async () => {
    const out = await editImage({ prompt: 'rotate 90', images: [await synthetic(64, 48)] });
    expect([out.width, out.height]).toEqual([48, 64]);
    const img = await decode(out.png);
    expect([img.width, img.height]).toEqual([48, 64]);
    expect(isRed(pixel(img, 46, 1))).toBe(true);
    expect(isRed(pixel(img, 1, 1))).toBe(false);
  });

  it('rotate left moves the marker to the bottom-left', async () => {
    const img = await decode((await editImage({ prompt: 'rotate left', images: [await synthetic(64, 48)] })).png);
    expect([img.width, img.height]).toEqual([48, 64]);
    expect(isRed(pixel(img, 1, 62))).toBe(true);
  });

  it('rotate 45 degrees keeps the canvas size and leaves transparent corners', async () => {
    const out = await editImage({ prompt: 'rotate 45 degrees', images: [await synthetic(64, 48)] });
    const img = await decode(out.png);
    expect([img.width, img.height]).toEqual([64, 48]);
    expect(img.channels).toBe(4);
    expect(pixel(img, 0, 0)[3]).toBe(0);
    expect(pixel(img, 32, 24)[3]).toBe(255);
  });

  it('flip moves the marker to the bottom, mirror moves it to the right', async () => {
    const input = await synthetic(64, 48);
    const flipped = await decode((await editImage({ prompt: 'flip', images: [input] })).png);
    expect(isRed(pixel(flipped, 1, 46))).toBe(true);
    expect(isRed(pixel(flipped, 1, 1))).toBe(false);
    const mirrored = await editImage({ prompt: 'mirror', images: [input] });
    expect(mirrored.operations).toEqual(['mirror']);
    const m = await decode(mirrored.png);
    expect(isRed(pixel(m, 62, 1))).toBe(true);
    expect(isRed(pixel(m, 1, 1))).toBe(false);
  });

  it('resize instructions set the output size', async () => {
    const input = await synthetic(64, 48);
    const exact = await editImage({ prompt: 'resize to 40x20', images: [input] });
    expect([exact.width, exact.height]).toEqual([40, 20]);
    expect((await sharp(exact.png).metadata()).width).toBe(40);
    const half = await editImage({ prompt: 'half size', images: [input] });
    expect([half.width, half.height]).toEqual([32, 24]);
    const doubled = await editImage({ prompt: 'double size', images: [input] });
    expect([doubled.width, doubled.height]).toEqual([128, 96]);
    const pct = await editImage({ prompt: 'scale 25%', images: [input] });
    expect([pct.width, pct.height]).toEqual([16, 12]);
  });

  it('clamps outputs to 4096 per side', async () => {
    const out = await editImage({ prompt: 'resize to 8000x16', images: [await synthetic(64, 48)] });
    expect(out.width).toBe(4096);
    expect(out.height).toBe(8);
    const meta = await sharp(out.png).metadata();
    expect([meta.width, meta.height]).toEqual([4096, 8]);
  });

  it('applies an explicit target size after the operations', async () => {
    const out = await editImage({ prompt: 'sepia', images: [await synthetic(64, 48)], width: 30, height: 30 });
    expect([out.width, out.height]).toEqual([30, 30]);
    const img = await decode(out.png);
    expect([img.width, img.height]).toEqual([30, 30]);
    // Sepia tones: red >= green >= blue everywhere.
    for (let p = 0; p < img.width * img.height; p++) {
      const i = p * img.channels;
      expect(img.data[i]! + 1).toBeGreaterThanOrEqual(img.data[i + 1]!);
      expect(img.data[i + 1]! + 1).toBeGreaterThanOrEqual(img.data[i + 2]!);
    }
  });

  it('applies several operations in prompt order', async () => {
    const out = await editImage({ prompt: 'blur 2 then grayscale, then darken', images: [await synthetic()] });
    expect(out.operations).toEqual(['blur', 'grayscale', 'darken']);
    const before = meanRgb(await decode(await synthetic()));
    const after = meanRgb(await decode(out.png));
    expect(after[0]).toBe(after[1]);
    expect(after[0] + after[1] + after[2]).toBeLessThan(before[0] + before[1] + before[2]);
  });

  it('pixelate produces uniform blocks', async () => {
    const out = await editImage({ prompt: 'pixelate 8', images: [await synthetic(64, 48)] });
    const img = await decode(out.png);
    expect([img.width, img.height]).toEqual([64, 48]);
    const block = pixel(img, 16, 16);
    for (let y = 16; y < 24; y++) for (let x = 16; x < 24; x++) expect(pixel(img, x, y)).toEqual(block);
    expect(pixel(img, 24, 16)).not.toEqual(block);
  });

  it('composes three references side by side', async () => {
    const refs = await Promise.all([solid(40, 30, [255, 0, 0]), solid(40, 30, [0, 255, 0]), solid(40, 30, [0, 0, 255])]);
    const out = await editImage({ prompt: 'make a collage', images: refs });
    expect(out.operations).toEqual(['collage']);
    expect(out.understood).toBe(true);
    const img = await decode(out.png);
    expect([img.width, img.height]).toEqual([120, 30]);
    expect(pixel(img, 20, 15).slice(0, 3)).toEqual([255, 0, 0]);
    expect(pixel(img, 60, 15).slice(0, 3)).toEqual([0, 255, 0]);
    expect(pixel(img, 100, 15).slice(0, 3)).toEqual([0, 0, 255]);
  });

  it('blends references when asked, then applies the other operations', async () => {
    const refs = await Promise.all([solid(32, 32, [200, 0, 0]), solid(64, 64, [0, 0, 200])]);
    const out = await editImage({ prompt: 'blend these two and invert', images: refs });
    expect(out.operations).toEqual(['blend', 'negate']);
    expect([out.width, out.height]).toEqual([32, 32]);
    const p = pixel(await decode(out.png), 10, 10);
    expect(p[0]).toBeGreaterThanOrEqual(154);
    expect(p[0]).toBeLessThanOrEqual(156);
    expect(p[1]).toBe(255);
    expect(p[2]).toBeGreaterThanOrEqual(154);
    expect(p[2]).toBeLessThanOrEqual(156);
  });

  it('a tint gives the image its colour and keeps its structure', async () => {
    const input = await decode(await synthetic(64, 48));
    const dominant = async (prompt: string) => {
      const out = await editImage({ prompt, images: [await synthetic(64, 48)] });
      expect(out.operations).toEqual(['tint']);
      const img = await decode(out.png);
      expect([img.width, img.height]).toEqual([64, 48]);
      const [r, g, b] = meanRgb(img);
      return { r, g, b, img };
    };
    const green = await dominant('make it green');
    expect(green.g).toBeGreaterThan(green.r + 20);
    expect(green.g).toBeGreaterThan(green.b + 20);
    const blue = await dominant('turn it blue');
    expect(blue.b).toBeGreaterThan(blue.r + 20);
    expect(blue.b).toBeGreaterThan(blue.g + 20);
    const warm = await dominant('warmer');
    expect(warm.r).toBeGreaterThan(warm.b + 20);
    // Lightness is kept: the light corner stays clearly lighter than the dark one.
    const light = (img: Decoded, x: number, y: number) => pixel(img, x, y).slice(0, 3).reduce((a, c) => a + c, 0);
    expect(light(input, 60, 44) - light(input, 5, 5)).toBeGreaterThan(200);
    expect(light(green.img, 60, 44) - light(green.img, 5, 5)).toBeGreaterThan(100);
  });

  it('stylizes an instruction it does not understand and says so', async () => {
    const input = await synthetic(64, 48);
    const out = await editImage({ prompt: 'add a dragon breathing fire', images: [input] });
    expect(out.understood).toBe(false);
    expect(out.operations).toEqual(['stylize']);
    const meta = await sharp(out.png).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([64, 48]);
    expect(meanDistance(await decode(input), await decode(out.png))).toBeGreaterThan(3);
    const again = await editImage({ prompt: 'add a dragon breathing fire', images: [input] });
    expect(again.png.equals(out.png)).toBe(true);
  });

  it('accepts JPEG and WebP references and always returns PNG', async () => {
    for (const format of ['jpeg', 'webp'] as const) {
      const out = await editImage({ prompt: 'mirror', images: [await synthetic(64, 48, format)] });
      const meta = await sharp(out.png).metadata();
      expect(meta.format).toBe('png');
      expect([meta.width, meta.height]).toEqual([64, 48]);
    }
  });

  it('keeps transparency of RGBA inputs', async () => {
    const rgba = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
    const img = await decode((await editImage({ prompt: 'grayscale', images: [rgba] })).png);
    expect(img.channels).toBe(4);
    const p = pixel(img, 8, 8);
    expect(p[0]).toBe(p[1]);
    expect(p[3]).toBeGreaterThanOrEqual(127);
    expect(p[3]).toBeLessThanOrEqual(128);
  });

  it('throws EngineInputError for undecodable or missing input', async () => {
    const bad = editImage({ prompt: 'grayscale', images: [Buffer.from('definitely not an image')] });
    await expect(bad).rejects.toBeInstanceOf(EngineInputError);
    await expect(bad).rejects.toBeInstanceOf(Error);
    await expect(editImage({ prompt: 'grayscale', images: [] })).rejects.toBeInstanceOf(EngineInputError);
    const truncated = (await synthetic()).subarray(0, 40);
    await expect(editImage({ prompt: 'grayscale', images: [truncated] })).rejects.toBeInstanceOf(EngineInputError);
  });
});
