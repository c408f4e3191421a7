// Shared shapes of the loopback emulators (fake upstreams for integration tests and benchmarks).
// Kept apart from the servers so test code can import the types without pulling node:http in.

/** What to do instead of (or before) the normal answer to a matching request. */
export interface Fault {
  /** Answer with this HTTP status and the emulator's native error body. */
  status?: number;
  /** Raw body to send instead (e.g. malformed JSON, or an error body containing a secret). */
  body?: string;
  /** Extra response headers, e.g. {'retry-after': '2'}; alone, they are added to the normal answer. */
  headers?: Record<string, string>;
  /** Delay before answering (alone: then answer normally). */
  latencyMs?: number;
  /** Destroy the socket with a TCP RST without answering (connection reset). */
  reset?: boolean;
  /** Send headers with a Content-Length larger than the body, then end the socket mid-body. */
  truncate?: boolean;
  /** Apply to the next N matching requests; default: until cleared. */
  times?: number;
}

/**
 * A route name the emulator knows (see each emulator's `routes`), an exact 'METHOD /path'
 * (query string excluded), or '*' for every request.
 */
export type FaultRoute = string;

export interface UploadedFile {
  field: string;
  name: string;
  type: string;
  size: number;
}

export interface RecordedRequest {
  method: string;
  /** The raw request target, query string included (e.g. '/q/fal-ai/x/requests/1/status?logs=1'). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The route name the emulator resolved the request to ('unknown' when none matched). */
  route: string;
  /** Files of a multipart body, when the emulator parsed one. */
  files?: UploadedFile[];
}

export interface Emulator {
  /** openai: 'http://127.0.0.1:<port>/v1'; fal: 'http://127.0.0.1:<port>' (the queue base). */
  baseUrl: string;
  /** 'http://127.0.0.1:<port>' for both. */
  origin: string;
  /** The key it accepts; any other (or none) gets a 401. */
  apiKey: string;
  /** Route names accepted by `inject` besides '*' and exact 'METHOD /path'. */
  routes: readonly string[];
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  inject(route: FaultRoute, fault: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}
