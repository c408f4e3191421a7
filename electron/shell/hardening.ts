// Navigation and window.open are denied for every web contents; webviews cannot be attached.
// Permissions are refused, but for the two the studio page's own buttons need: copying (an API
// key, a prompt) with navigator.clipboard.writeText, which Electron routes through these
// handlers as clipboard-sanitized-write, and the <video> player's full-screen button.
import type { Session, WebContents } from 'electron';
import { isStudioUrl } from './window-options.js';

const STUDIO_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write', 'fullscreen']);

export function hardenWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

export function hardenSession(session: Session): void {
  // Most web APIs check first and request only when the check says no: both must agree.
  // The origin comes as a URL string ("app://studio" or "app://studio/").
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    STUDIO_PERMISSIONS.has(permission) && details.isMainFrame && isStudioUrl(requestingOrigin),
  );
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(STUDIO_PERMISSIONS.has(permission) && details.isMainFrame && isStudioUrl(details.requestingUrl)),
  );
}
