// Two privileged schemes: app://studio/ serves the built renderer (with the CSP header) and
// studio-media: serves gallery images and videos (streamed, with byte ranges, so <video> can seek).
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Net, Protocol } from 'electron';
import type { Studio } from '../core/studio/studio.js';
import { RENDERER_DIST } from '../project-paths.js';
import { mediaResponse } from './media-response.js';
import { ELECTRON_CSP } from './window-options.js';

export const PRIVILEGED_SCHEMES = [
  { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
  { scheme: 'studio-media', privileges: { secure: true, stream: true, supportFetchAPI: true } },
];

/** The renderer file for an app://studio/ URL, or null when it would leave the build folder. */
export function rendererFile(url: string): string | null {
  const { pathname } = new URL(url);
  const relative = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
  const file = normalize(join(RENDERER_DIST, relative));
  return file.startsWith(RENDERER_DIST + sep) ? file : null;
}

export function registerAppProtocols(protocol: Protocol, net: Net, studio: Studio): void {
  protocol.handle('app', async (request) => {
    const file = rendererFile(request.url);
    if (!file) return new Response('Not found', { status: 404 });
    // net.fetch rejects for a file that is not there, and a rejected handler is a failed load
    // (logged by Electron as an error) rather than an answer the page can see.
    const response = await net.fetch(pathToFileURL(file).toString()).catch(() => null);
    if (!response) return new Response('Not found', { status: 404 });
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', ELECTRON_CSP);
    return new Response(response.body, { status: response.status, headers });
  });
  protocol.handle('studio-media', async (request) => {
    const path = request.url.replace(/^studio-media:(\/\/media\/)?/, '');
    const file = await studio.mediaFile(decodeURIComponent(path));
    if (!file) return new Response('Not found', { status: 404 });
    return mediaResponse(file, request.headers.get('range'));
  });
}
