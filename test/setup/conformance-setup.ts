// Vitest setup (vitest.config.ts): the global fetch checks every gateway /v1 answer against the
// gateway's OpenAPI document (test/helpers/conformance.ts); a test that saw an answer outside
// the document fails after it ran, naming the request.
import { afterEach, expect } from 'vitest';
import { conformanceProblem } from '../helpers/conformance.js';

const original = globalThis.fetch;
let pending: Promise<string | null>[] = [];

globalThis.fetch = async (input, init) => {
  const response = await original(input, init);
  const request = input instanceof Request ? input : null;
  const url = new URL(request ? request.url : String(input));
  const headers = new Headers(init?.headers ?? request?.headers);
  const method = init?.method ?? request?.method ?? 'GET';
  pending.push(conformanceProblem(original, method, url, headers, response.clone()));
  return response;
};

afterEach(async () => {
  const checks = pending;
  pending = [];
  // A body the test never read to its end may never arrive: wait a little, then let it go.
  const settled = await Promise.race([Promise.all(checks), new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000).unref())]);
  const problems = (settled ?? []).filter((problem): problem is string => problem !== null);
  expect(problems, 'answers outside the OpenAPI document').toEqual([]);
});
