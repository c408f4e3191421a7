// Every /v1 response a test sees is checked against the OpenAPI document its server serves
// (issue 23: "every response the test suites see from /v1 matches the document"). The raw HTTP
// helpers (http.ts) and the OpenAI SDK clients the test gateways hand out both go through here.
// The document is fetched once per server; a response that does not match fails the request
// itself, so the test that made it fails where it made it.
import { responseChecker } from './openapi-responses.js';
import type { RawResponse } from './http.js';

type Check = (method: string, path: string, response: RawResponse) => void;
const checkers = new Map<string, Promise<Check>>();

/** Paths the document does not cover by design: the document itself. */
const UNDOCUMENTED = new Set(['/v1/openapi.json']);

function checkerFor(origin: string): Promise<Check> {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = fetch(`${origin}/v1/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`${origin}/v1/openapi.json answered ${response.status}`);
      return responseChecker(await response.json());
    });
    checkers.set(origin, checker);
  }
  return checker;
}

/** Whether a request to `url` with these headers is one the document describes at all. */
function documented(url: URL, headers: Headers): boolean {
  if (!url.pathname.startsWith('/v1/') || UNDOCUMENTED.has(url.pathname)) return false;
  // Answers the Host and Origin guards give before any route: not an operation's answers.
  const host = headers.get('host');
  return host === null || host === url.host;
}

/** Throws when `response` (to `method url`) does not match the server's OpenAPI document. */
export async function checkConformance(method: string, url: string, requestHeaders: HeadersInit | undefined, response: RawResponse): Promise<void> {
  const parsed = new URL(url);
  if (!documented(parsed, new Headers(requestHeaders))) return;
  const check = await checkerFor(parsed.origin);
  check(method.toUpperCase(), `${parsed.pathname}${parsed.search}`, response);
}

/** A fetch for the OpenAI SDK that checks every /v1 answer (JSON ones read from a clone). */
export const conformingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const type = response.headers.get('content-type') ?? '';
  const text = type.includes('json') ? await response.clone().text() : '';
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  await checkConformance(method, url, init?.headers, { status: response.status, headers: response.headers, body, text });
  return response;
};
