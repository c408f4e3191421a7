// Latency of the built-in image engine: 1024x1024 generation and a 1024px edit.
// Returns numbers only; bench/run.ts prints and stores them.
import sharp from 'sharp';
import { editImage, generateImage } from '../electron/engine/images/index.js';

export interface EngineBenchResult {
  name: string;
  p50_ms: number;
  p95_ms: number;
  target_ms: number;
}

const SUBJECTS = ['sunset', 'ocean', 'forest', 'night sky', 'desert', 'snowy peaks', 'neon city', 'candy clouds', 'galaxy', 'aurora', 'abstract shapes', 'a red bicycle', 'lake', 'storm', 'synthwave grid', 'castle'];
const MODIFIERS = ['over the mountains', 'at dawn', 'with reflections', 'in watercolor', 'minimal', 'by the sea', 'under the stars', 'in spring'];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? 0;
}

async function measure(runs: number, warmup: number, task: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warmup; i++) await task(1000 + i);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await task(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 10) / 10;
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };
}

export async function benchEngineImages(): Promise<EngineBenchResult[]> {
  const prompt = (i: number): string => `${SUBJECTS[i % SUBJECTS.length] ?? 'sunset'} ${MODIFIERS[Math.floor(i / SUBJECTS.length) % MODIFIERS.length] ?? ''} #${i}`;
  // Warm-up covers every subject so each painter is JIT-compiled before timing starts.
  const gen = await measure(40, SUBJECTS.length, (i) => generateImage({ prompt: prompt(i), width: 1024, height: 1024 }));

  const reference = (await generateImage({ prompt: 'bench reference landscape', width: 1024, height: 1024 })).png;
  const jpeg = await sharp(reference).jpeg({ quality: 85 }).toBuffer();
  const edits = ['grayscale', 'blur 4', 'rotate 90 and sepia', 'invert', 'pixelate', 'mirror and brighten'];
  const edit = await measure(30, 5, (i) => editImage({ prompt: edits[i % edits.length] ?? 'grayscale', images: [jpeg] }));

  return [
    { name: 'engine generateImage 1024x1024', p50_ms: gen.p50, p95_ms: gen.p95, target_ms: 50 },
    { name: 'engine editImage 1024px JPEG', p50_ms: edit.p50, p95_ms: edit.p95, target_ms: 60 },
  ];
}
