// The ComfyUI emulator's prompt queue and its single worker, after execution.py's PromptQueue
// (a heapq of (number, prompt_id, prompt, extra_data, outputs_to_execute); currently_running;
// history {prompt, outputs, status: {status_str, completed, messages}, meta}; task_done strips
// SENSITIVE_EXTRA_DATA_KEYS) and main.py's prompt_worker (execute, task_done, then a final
// "executing" with node null to the prompt's client). Every queue change broadcasts "status".
import type { Prompt } from './comfyui-graph.js';
import type { ExecResult, Executor } from './comfyui-engine.js';

export type QueueItem = [number, string, Prompt, Record<string, unknown>, string[]];
export interface HistoryEntry {
  prompt: QueueItem;
  outputs: Record<string, unknown>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: ExecResult['messages'] } | null;
  meta: Record<string, unknown>;
}

const SENSITIVE_EXTRA_DATA_KEYS = ['auth_token_comfy_org', 'api_key_comfy_org'];
const MAXIMUM_HISTORY_SIZE = 10000;

// Python tuple comparison of queue items: number, then prompt_id.
const less = (a: QueueItem, b: QueueItem) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

function siftDown(heap: QueueItem[], start: number, pos: number): void {
  const item = heap[pos]!;
  while (pos > start) {
    const parent = (pos - 1) >> 1;
    if (!less(item, heap[parent]!)) break;
    heap[pos] = heap[parent]!;
    pos = parent;
  }
  heap[pos] = item;
}

function siftUp(heap: QueueItem[], pos: number): void {
  const end = heap.length;
  const start = pos;
  const item = heap[pos]!;
  let child = 2 * pos + 1;
  while (child < end) {
    const right = child + 1;
    if (right < end && !less(heap[child]!, heap[right]!)) child = right;
    heap[pos] = heap[child]!;
    pos = child;
    child = 2 * pos + 1;
  }
  heap[pos] = item;
  siftDown(heap, start, pos);
}

export class PromptQueue {
  private heap: QueueItem[] = [];
  private readonly running = new Map<number, QueueItem>();
  private taskCounter = 0;
  history = new Map<string, HistoryEntry>();
  private waiter: (() => void) | undefined;

  constructor(private readonly updated: () => void) {}

  put(item: QueueItem): void {
    this.heap.push(item);
    siftDown(this.heap, 0, this.heap.length - 1);
    this.updated();
    this.waiter?.();
  }

  async get(): Promise<[QueueItem, number]> {
    while (this.heap.length === 0) await new Promise<void>((resolve) => (this.waiter = resolve));
    this.waiter = undefined;
    const last = this.heap.pop()!;
    let item = last;
    if (this.heap.length > 0) {
      item = this.heap[0]!;
      this.heap[0] = last;
      siftUp(this.heap, 0);
    }
    const id = this.taskCounter++;
    this.running.set(id, structuredClone(item));
    this.updated();
    return [item, id];
  }

  taskDone(id: number, result: ExecResult): void {
    const prompt = this.running.get(id);
    if (!prompt) return;
    this.running.delete(id);
    if (this.history.size > MAXIMUM_HISTORY_SIZE) this.history.delete(this.history.keys().next().value!);
    for (const key of SENSITIVE_EXTRA_DATA_KEYS) delete prompt[3][key];
    this.history.set(prompt[1], {
      prompt,
      outputs: result.outputs,
      status: { status_str: result.success ? 'success' : 'error', completed: result.success, messages: result.messages },
      meta: result.meta,
    });
    this.updated();
  }

  /** [running items, pending items in heap order] (get_current_queue_volatile). */
  current(): [QueueItem[], QueueItem[]] {
    return [[...this.running.values()], [...this.heap]];
  }

  remaining(): number {
    return this.heap.length + this.running.size;
  }

  wipe(): void {
    this.heap = [];
    this.updated();
  }

  /** delete_queue_item: the first pending item with that prompt_id. */
  delete(promptId: unknown): boolean {
    const index = this.heap.findIndex((item) => item[1] === promptId);
    if (index === -1) return false;
    if (this.heap.length === 1) this.wipe();
    else {
      this.heap.splice(index, 1);
      for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) siftUp(this.heap, i);
    }
    this.updated();
    return true;
  }

  getHistory(promptId?: string, maxItems?: number, offset = -1): Record<string, HistoryEntry> {
    if (promptId !== undefined) {
      const entry = this.history.get(promptId);
      return entry ? { [promptId]: structuredClone(entry) } : {};
    }
    const out: Record<string, HistoryEntry> = {};
    let start = offset;
    if (start < 0 && maxItems !== undefined) start = this.history.size - maxItems;
    let i = 0;
    for (const [key, entry] of this.history) {
      if (i >= start) {
        out[key] = entry;
        if (maxItems !== undefined && Object.keys(out).length >= maxItems) break;
      }
      i++;
    }
    return out;
  }

  /** The engine restarted: nothing queued, running or remembered. */
  reset(): void {
    this.heap = [];
    this.running.clear();
    this.history = new Map();
  }
}

/** main.py prompt_worker: one prompt at a time, until stop() is called. */
export function startWorker(
  queue: PromptQueue,
  executor: Executor,
  hooks: { send(event: string, data: unknown, sid: string | null): void; started(promptId: string): void; finished(promptId: string): void },
): { stop(): void; idle(): boolean } {
  let stopped = false;
  let busy = false;
  void (async () => {
    while (!stopped) {
      const [item, id] = await queue.get();
      if (stopped) return;
      busy = true;
      hooks.started(item[1]);
      const result = await executor.execute(item[2], item[1], item[3], item[4]).catch((error: unknown) => {
        // An emulator bug: record it as an error rather than wedge the queue.
        return { success: false, messages: [['execution_error', { prompt_id: item[1], exception_message: String(error), exception_type: 'EmulatorBug', timestamp: Date.now() }]], outputs: {}, meta: {} } as ExecResult;
      });
      busy = false;
      if (!result) continue; // forgotten by a restart
      queue.taskDone(id, result);
      if (executor.clientId !== null) hooks.send('executing', { node: null, prompt_id: item[1] }, executor.clientId);
      hooks.finished(item[1]);
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
    idle: () => !busy,
  };
}
