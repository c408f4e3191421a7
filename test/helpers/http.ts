// Raw HTTP helpers for cases the SDK cannot express (bad bodies, wrong content types, headers).
// Every /v1 answer is checked against the server's OpenAPI document (test/setup/conformance-setup.ts).
export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<RawResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function postJson(url: string, body: unknown, token?: string, extra: Record<string, string> = {}): Promise<RawResponse> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function postForm(url: string, form: FormData, token?: string): Promise<RawResponse> {
  return request(url, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
}

/** Asserts the standard error body and returns it for further checks. */
export function errorOf(response: RawResponse): { message: string; type: string; code: string; param: string | null } {
  const body = response.body as { error?: { message: string; type: string; code: string; param: string | null } } | null;
  if (!body?.error) throw new Error(`expected an error body, got ${response.status}: ${response.text.slice(0, 200)}`);
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'error') throw new Error(`error body has extra keys: ${keys}`);
  const errKeys = Object.keys(body.error).sort().join(',');
  if (errKeys !== 'code,message,param,type') throw new Error(`error object keys: ${errKeys}`);
  return body.error;
}

/** "<status> <code>" of a response, so one comparison shows what every request got. */
export function outcome(response: RawResponse): string {
  if (response.status === 200) return '200';
  try {
    return `${response.status} ${errorOf(response).code}`;
  } catch {
    return `${response.status} (not the standard error body: ${response.text.slice(0, 120)})`;
  }
}

/** What the official openai SDK's thrown error tells a client: status, the gateway's error object, its Retry-After. */
export interface SdkRefusal {
  status: number;
  code: string;
  message: string;
  /** The whole error object, to check that no upstream text is in it. */
  raw: string;
  retryAfter: string | null;
}

/** The refusal of an SDK call that must fail (a call that succeeds is a test failure). */
export async function sdkRefusal(call: Promise<unknown>): Promise<SdkRefusal> {
  try {
    await call;
  } catch (error) {
    const e = error as { status: number; error: { code: string; message: string }; headers?: Headers | Record<string, string> };
    const headers = e.headers instanceof Headers ? e.headers : new Headers((e.headers ?? {}) as Record<string, string>);
    return { status: e.status, code: e.error.code, message: e.error.message, raw: JSON.stringify(e.error), retryAfter: headers.get('retry-after') };
  }
  throw new Error('the call succeeded');
}
