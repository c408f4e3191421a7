// Bundles the CLI (and so `mgw serve`) into one file: loading ~700 small ESM modules one by one
// dominated the gateway's cold start. Native and worker-loaded packages stay external.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { mgw: 'dist/electron/cli.js' },
  platform: 'node',
  external: [/^node:/, 'libsql', 'sharp', 'h264-mp4-encoder', 'electron', 'electron-store'],
  output: { dir: 'dist/bundle', format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[hash].mjs', sourcemap: true },
});
