// Fault injection shared by both emulators: a FIFO table of injected faults and the code that
// turns a fault into latency, a reset, a truncated body or a replaced answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault, FaultRoute } from './types.js';
import { type Reply, resetSocket, send, sleep } from './http-kit.js';

const EXACT_ROUTE = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) \/\S*$/;

interface Entry {
  route: FaultRoute;
  fault: Fault;
  remaining: number | undefined;
}

export class FaultTable {
  private entries: Entry[] = [];

  constructor(private readonly known: readonly string[]) {}

  inject(route: FaultRoute, fault: Fault): void {
    // A typo in a route would silently never match and make a fault test pass for nothing.
    const isKnown = route === '*' || this.known.includes(route);
    const isExact = EXACT_ROUTE.test(route) && !route.includes('/:') && !route.includes('?');
    if (!isKnown && !isExact) {
      throw new Error(`unknown fault route '${route}'; use '*', 'METHOD /exact/path' or one of: ${this.known.join(', ')}`);
    }
    if (fault.times !== undefined && (!Number.isInteger(fault.times) || fault.times < 1)) {
      throw new Error(`fault.times must be a positive integer, got ${fault.times}`);
    }
    if (fault.status !== undefined && (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599)) {
      throw new Error(`fault.status must be an HTTP status, got ${fault.status}`);
    }
    this.entries.push({ route, fault: { ...fault }, remaining: fault.times });
  }

  clear(): void {
    this.entries = [];
  }

  /** The first injected fault (in injection order) matching one of `candidates`; uses one of its `times`. */
  take(candidates: readonly string[]): Fault | undefined {
    const index = this.entries.findIndex((entry) => candidates.includes(entry.route));
    const entry = this.entries[index];
    if (!entry) return undefined;
    if (entry.remaining !== undefined) {
      entry.remaining -= 1;
      if (entry.remaining <= 0) this.entries.splice(index, 1);
    }
    return entry.fault;
  }
}

/** What the pipeline does after a fault ran: nothing more, or the normal answer with tweaks. */
export type FaultOutcome =
  | { handled: true }
  | { handled: false; extraHeaders: Record<string, string>; truncate: boolean };

/**
 * Runs a fault. `errorReply(status)` builds the emulator's native error body (OpenAI or fal).
 * Latency comes first; then reset; then a replaced answer (status and/or raw body), possibly
 * truncated. A fault with only latency/headers/truncate lets the normal answer through.
 */
export async function applyFault(
  req: IncomingMessage,
  res: ServerResponse,
  fault: Fault,
  errorReply: (status: number) => Reply,
): Promise<FaultOutcome> {
  if (fault.latencyMs !== undefined && fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (fault.reset) {
    resetSocket(req.socket);
    return { handled: true };
  }
  const extraHeaders = fault.headers ?? {};
  if (fault.status !== undefined || fault.body !== undefined) {
    const reply: Reply =
      fault.body !== undefined
        ? { status: fault.status ?? 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(fault.body) }
        : errorReply(fault.status ?? 500);
    send(res, reply, { truncate: fault.truncate === true, extraHeaders });
    return { handled: true };
  }
  return { handled: false, extraHeaders, truncate: fault.truncate === true };
}
