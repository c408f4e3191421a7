// The emulators' entry point (test/emulators/index.ts) reaches every cloud emulator, so tests and
// benchmarks of the replicate, gemini and runway kinds need no path into the folder's files.
import { describe, expect, it } from 'vitest';
import { GEMINI_ROUTES, REPLICATE_ROUTES, RUNWAY_ROUTES, startGeminiEmulator, startReplicateEmulator, startRunwayEmulator } from '../emulators/index.js';

describe('test/emulators/index.ts', () => {
  it.each([
    ['replicate', () => startReplicateEmulator(), REPLICATE_ROUTES],
    ['gemini', () => startGeminiEmulator(), GEMINI_ROUTES],
    ['runway', () => startRunwayEmulator(), RUNWAY_ROUTES],
  ] as const)('starts the %s emulator on loopback', async (_kind, start, routes) => {
    const emulator = await start();
    try {
      expect(emulator.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(emulator.routes).toEqual(routes);
    } finally {
      await emulator.close();
    }
  });
});
