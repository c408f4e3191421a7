// Compile-time test (tsc -p test/types): the handler map must cover every contract method.
import type { StudioHandlers } from '../../electron/core/studio/studio-context.js';
import { buildHandlers } from '../../electron/core/studio/studio.js';

// The real map type-checks as complete.
export const complete: StudioHandlers = buildHandlers(null as never);

// A map missing one method does not compile.
declare const all: StudioHandlers;
const { 'videos.cancel': _dropped, ...missingOne } = all;
// @ts-expect-error 'videos.cancel' is missing
export const incomplete: StudioHandlers = missingOne;

// A handler with the wrong output type does not compile either.
export const wrongOutput: StudioHandlers = {
  ...all,
  // @ts-expect-error catalog.list must return { models }
  'catalog.list': async () => ({ items: [] }),
};
