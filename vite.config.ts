// Builds the prompt studio (renderer/) into dist/renderer, served by Electron (file/app protocol)
// and by `mgw serve` under /studio/, hence the relative base.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `MGW_STUDIO_URL=http://127.0.0.1:8787 npx vite` proxies /studio/* to a running `mgw serve`,
// so the dev server talks to a real gateway (open http://localhost:5173/#token=<owner token>).
const devTarget = process.env.MGW_STUDIO_URL;

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    // The CSP is default-src 'self': never inline assets as data: URLs.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  // The gateway refuses posts from pages of another origin (CSRF); this page is the gateway's own
  // when proxied, so it is presented as the target's origin, as changeOrigin does for the Host.
  server: devTarget ? { proxy: { '/studio': { target: devTarget, changeOrigin: true, headers: { origin: devTarget } } } } : {},
});
