// Shared steps for the studio specs: open the studio with the owner token, switch views, and
// make small PNG files without any image library.
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { expect, type Page } from '@playwright/test';
import { readServerState } from './server-state';

export const VIEW_NAMES = ['Models', 'Images', 'Edit', 'Videos', 'Billing', 'Keys', 'Providers', 'Activity'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export async function openStudio(page: Page): Promise<void> {
  await page.goto(readServerState().studioUrl);
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
  // The token left the address bar (it now lives in sessionStorage).
  expect(page.url()).not.toContain('token=');
  await expect(page.getByTestId('header-balance')).toHaveText(/^\$\d/);
}

export async function gotoView(page: Page, name: ViewName): Promise<void> {
  const button = page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
  await button.click();
  await expect(button).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { level: 1, name, exact: true })).toBeVisible();
}

/** Resolves once every <img> on the page has loaded (or failed). */
export async function imagesSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG with a diagonal gradient from `from` to `to`. */
export function png(width: number, height: number, from: [number, number, number], to: [number, number, number]): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x += 1) {
      const t = (x / width + y / height) / 2;
      for (let c = 0; c < 3; c += 1) raw[row + 1 + x * 3 + c] = Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An RGB PNG of random pixels: it does not compress, so the file is about width*height*3 bytes. */
export function noisePng(width: number, height: number): Buffer {
  const raw = randomBytes((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) raw[y * (width * 3 + 1)] = 0; // filter: none
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Calls a studio method from outside the page, as the owner (what the gateway really holds). */
export async function studioApi<T>(method: string, input: unknown = {}): Promise<T> {
  const url = new URL(readServerState().studioUrl);
  const token = new URLSearchParams(url.hash.slice(1)).get('token');
  const response = await fetch(`${url.origin}/studio/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  if (!response.ok) throw new Error(`${method}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
