// Every /v1 answer a test sees from a gateway is checked against the OpenAPI document that
// gateway serves (issue 23: "every response the test suites see from /v1 matches the document").
// test/setup/conformance-setup.ts wraps the global fetch (which the raw HTTP helpers, the OpenAI
// SDK clients and the tests' own fetch calls all use): each answer to a /v1 path of a gateway the
// test helpers started (registerGateway) is checked in the background from a clone, and what does
// not match fails the test that made the request. Other origins (emulated upstreams) are not
// gateways: never checked, never sent a request they did not expect.
import { responseChecker } from './openapi-responses.js';

type Check = ReturnType<typeof responseChecker>;
const checkers = new Map<string, Promise<Check | null>>();
const gateways = new Set<string>();

/** A gateway's base URL (any path): its /v1 answers are checked from now on. */
export function registerGateway(baseUrl: string): void {
  gateways.add(new URL(baseUrl).origin);
}

/** A request header that leaves its answer unchecked, for the few tests whose point is an answer outside the document. */
export const UNCHECKED_HEADER = 'x-test-unchecked';

/** Paths the document does not describe by design: the document itself. */
const UNDOCUMENTED = new Set(['/v1/openapi.json']);

function checkerFor(origin: string, fetchOriginal: typeof fetch): Promise<Check | null> {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = fetchOriginal(`${origin}/v1/openapi.json`)
      .then(async (response) => {
        if (response.status !== 200) throw new Error(`${origin}/v1/openapi.json answered ${response.status}`);
        return responseChecker(await response.json());
      });
    checkers.set(origin, checker);
  }
  return checker;
}

/** Whether an answer to this request is one a gateway's document describes at all. */
function checkable(url: URL, headers: Headers): boolean {
  if (!gateways.has(url.origin) || !url.pathname.startsWith('/v1/') || UNDOCUMENTED.has(url.pathname) || headers.has(UNCHECKED_HEADER)) return false;
  // A request with another Host is answered by the Host guard before any route.
  const host = headers.get('host');
  return host === null || host === url.host;
}

/**
 * Checks `response` (to `method url`) against its server's document; resolves to a problem, or
 * null when it matches (or is not a gateway's /v1 answer, or its body never arrived whole).
 * A gateway that no longer answers for its document (closed by the test) is not checked.
 */
export async function conformanceProblem(fetchOriginal: typeof fetch, method: string, url: URL, requestHeaders: Headers, response: Response): Promise<string | null> {
  if (!checkable(url, requestHeaders)) return null;
  const check = await checkerFor(url.origin, fetchOriginal).catch(() => null);
  if (!check) return null;
  const type = response.headers.get('content-type') ?? '';
  let text = '';
  if (type.includes('json')) {
    try {
      text = await response.text();
    } catch {
      return null; // the test stopped reading (a client that left): nothing whole to check
    }
  }
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  try {
    check(method.toUpperCase(), `${url.pathname}${url.search}`, { status: response.status, headers: response.headers, body, text });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
