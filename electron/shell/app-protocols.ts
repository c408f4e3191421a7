// Two privileged schemes: app://studio/ serves the built renderer (with the CSP header) and
// studio-media: serves gallery images and videos (streamed, so <video> can seek).
import { stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Net, Protocol } from 'electron';
import type { Studio } from '../core/studio/studio.js';
import { RENDERER_DIST } from '../project-paths.js';
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
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', ELECTRON_CSP);
    return new Response(response.body, { status: response.status, headers });
  });
  protocol.handle('studio-media', async (request) => {
    const path = request.url.replace(/^studio-media:(\/\/media\/)?/, '');
    const file = await studio.mediaFile(decodeURIComponent(path));
    if (!file) return new Response('Not found', { status: 404 });
    // A video cut short or replaced since it finished is not played as if whole.
    const info = file.bytes === null ? null : await stat(file.path).catch(() => null);
    if (info && info.size !== file.bytes) return new Response('The video file is damaged', { status: 503 });
    return net.fetch(pathToFileURL(file.path).toString(), { headers: request.headers });
  });
}
