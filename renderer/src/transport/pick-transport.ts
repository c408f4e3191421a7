// Electron's preload wins (window.studio); otherwise the page is served by `mgw serve` and
// talks HTTP with the owner token; without either there is nothing to talk to.
import type { StudioBridge } from '../../../shared/studio-contract';
import type { StudioClient } from './client';
import { createHttpClient, openSession } from './http-client';
import { createIpcClient } from './ipc-client';
import { formatError, toStudioError } from './studio-error';
import { forgetToken, studioBase, takeToken } from './token';

declare global {
  interface Window {
    studio?: StudioBridge;
  }
}

export type TransportChoice =
  | { kind: 'ready'; client: StudioClient }
  | { kind: 'no-token' }
  | { kind: 'session-failed'; message: string };

export async function pickTransport(win: Window): Promise<TransportChoice> {
  if (win.studio) return { kind: 'ready', client: createIpcClient(win.studio) };
  const env = { location: win.location, history: win.history, storage: win.sessionStorage };
  const token = takeToken(env);
  if (!token) return { kind: 'no-token' };
  const options = { base: studioBase(win.location), token };
  try {
    await openSession(options);
  } catch (error) {
    // A refused token would fail again on every reload; drop it (but keep it if the server is just down).
    if (toStudioError(error).status === 401) forgetToken(env);
    return { kind: 'session-failed', message: formatError(error) };
  }
  return { kind: 'ready', client: createHttpClient(options) };
}
