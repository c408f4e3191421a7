// A prompt's progress from its events. ComfyUI reports steps per node ("progress": {value, max,
// prompt_id, node}, main.py hijack_progress), one sampler after another, so one bar is made of
// them: each node that reports steps (or each sampler the workflow has, if more) is an equal
// share. Cached nodes (execution_cached) will not run and take no share. The percent never
// goes back, and stays below 100 until the run has ended. `progress_state` (comfy_execution/
// progress.py, sent as each node starts, steps and finishes) lists every node of the run so far,
// so a process that starts listening mid-run (after a gateway restart) catches up on the
// samplers that ran before it did at the next event.
import type { Workflow } from '../templates/placeholders.js';
import { isObject, nodesOf } from './comfyui-checks.js';
import type { ComfyMessage } from './comfyui-socket.js';

/** Nodes that sample step by step (KSampler, KSamplerAdvanced, SamplerCustom...), not the ones choosing a sampler. */
const SAMPLER = /sampler/i;
const NOT_SAMPLING = /select|scheduler|sigmas/i;

export type PromptEnd = 'success' | 'error' | 'interrupted';

export class PromptProgress {
  private readonly samplers: Set<string>;
  private readonly fractions = new Map<string, number>();
  private reported = 0;
  ended: PromptEnd | null = null;

  constructor(workflow: Workflow | null) {
    this.samplers = new Set(workflow ? nodesOf(workflow).filter(([, node]) => SAMPLER.test(node.class_type) && !NOT_SAMPLING.test(node.class_type)).map(([id]) => id) : []);
  }

  get percent(): number {
    return this.ended === 'success' ? 100 : this.reported;
  }

  /** Takes one event; true when the percent or the end changed. */
  feed(message: ComfyMessage): boolean {
    const { type, data } = message;
    if (type === 'execution_cached' && Array.isArray(data.nodes)) {
      for (const id of data.nodes) if (typeof id === 'string' && !this.fractions.has(id)) this.samplers.delete(id);
      return this.update();
    }
    if (type === 'progress') {
      const node = typeof data.node === 'string' ? data.node : '?';
      if (!this.record(node, Number(data.value), Number(data.max))) return false;
      return this.update();
    }
    if (type === 'progress_state' && isObject(data.nodes)) {
      for (const [id, node] of Object.entries(data.nodes)) {
        if (!isObject(node)) continue;
        const max = Number(node.max);
        // Every node that started is listed, those without steps at max 1: only samplers and
        // nodes that report steps take a share, as with `progress`.
        if (!this.samplers.has(id) && !this.fractions.has(id) && !(max > 1)) continue;
        this.record(id, node.state === 'finished' ? max : Number(node.value), max);
      }
      return this.update();
    }
    const end = endOf(message);
    if (end && !this.ended) {
      this.ended = end;
      return true;
    }
    return false;
  }

  /** A node's steps done; false when they are not numbers. */
  private record(node: string, value: number, max: number): boolean {
    if (!Number.isFinite(value) || !Number.isFinite(max) || max <= 0) return false;
    this.fractions.set(node, Math.max(this.fractions.get(node) ?? 0, Math.min(1, Math.max(0, value / max))));
    return true;
  }

  private update(): boolean {
    const shares = Math.max(1, new Set([...this.samplers, ...this.fractions.keys()]).size);
    let done = 0;
    for (const fraction of this.fractions.values()) done += fraction;
    const percent = Math.min(99, Math.floor((done / shares) * 100));
    if (percent <= this.reported) return false;
    this.reported = percent;
    return true;
  }
}

/** How an event ends its prompt, if it does. `executing` with node null comes after the history entry is written. */
export function endOf(message: ComfyMessage): PromptEnd | null {
  switch (message.type) {
    case 'execution_success':
      return 'success';
    case 'execution_error':
      return 'error';
    case 'execution_interrupted':
      return 'interrupted';
    default:
      return null;
  }
}

/** The event after which /history holds the prompt's entry (main.py prompt_worker, after task_done). */
export const isFinished = (message: ComfyMessage): boolean => message.type === 'executing' && message.data.node === null;
