// The main window's options: the renderer is untrusted web content, so it gets no Node, runs
// sandboxed and isolated, and talks to the main process only through the preload's bridge.
import type { BrowserWindowConstructorOptions } from 'electron';

export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Media Gateway Studio',
    backgroundColor: '#111318',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}

/** The page's origin; IPC from any other frame is refused. */
export const STUDIO_ORIGIN = 'app://studio';
export const STUDIO_INDEX_URL = `${STUDIO_ORIGIN}/index.html`;

/** Whether a URL is one of the studio page's own (app://studio/...). */
export function isStudioUrl(url: string | undefined): boolean {
  return url === STUDIO_ORIGIN || (url?.startsWith(`${STUDIO_ORIGIN}/`) ?? false);
}

/** CSP of the Electron studio page: its own files, and media through the studio-media scheme. */
export const ELECTRON_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: studio-media:; media-src 'self' blob: studio-media:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";
