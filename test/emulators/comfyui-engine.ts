// The ComfyUI emulator's executor, after execution.py (PromptExecutor.execute_async, execute,
// handle_execution_error, add_message), comfy_execution/caching.py (classic cache keyed by input
// signature, so an identical re-run is all cached), comfy_execution/progress.py
// (WebUIProgressHandler's progress_state) and main.py's hijack_progress hook ("progress",
// interrupt checks, preview frames). Per node: progress_state (start), executing, [progress ...],
// executed (when it has ui), progress_state (finish). Per prompt: execution_start,
// execution_cached, ..., execution_success | execution_error | execution_interrupted.
import { createHash } from 'node:crypto';
import { isLink, type Prompt } from './comfyui-graph.js';
import { ExecutionList } from './comfyui-order.js';
import type { NodeDef } from './comfyui-nodes.js';
import type { FileStore } from './comfyui-files.js';
import type { WsHub } from './comfyui-ws.js';
import { NODE_RUNS, formatValue, type NodeCall, type Value } from './comfyui-run.js';
import { previewJpeg } from './comfyui-media.js';
import { InterruptProcessing, PyError, fakeTraceback } from './comfyui-python.js';
import { sleep } from './http-kit.js';

export interface Hold {
  step: number;
  /** Resolves once a sampler reached the step (after sending its progress event). */
  reached: Promise<void>;
  release(): void;
}
export interface Faults {
  stepDelayMs: number;
  fail?: { step: number; message: string; exceptionType: string; nodeId?: string };
  failNode?: { match: string; message: string; exceptionType: string };
  hold?: Hold & { arrive(): void; gate: Promise<void> };
}
export interface ExecResult {
  success: boolean;
  messages: [string, Record<string, unknown>][];
  outputs: Record<string, unknown>;
  meta: Record<string, unknown>;
}
interface Deps {
  registry: Map<string, NodeDef>;
  store: FileStore;
  hub: WsHub;
  faults: Faults;
  cache: 'classic' | 'none';
  previews: boolean;
  random: () => number;
}

class Aborted extends Error {}

class SignatureCache<T> {
  private entries = new Map<string, T>();
  private keys = new Map<string, string>();
  setPrompt(keys: Map<string, string>, keep: boolean): void {
    this.keys = keys;
    const used = new Set(keys.values());
    for (const key of [...this.entries.keys()]) if (!keep || !used.has(key)) this.entries.delete(key);
  }
  get = (id: string) => this.entries.get(this.keys.get(id) ?? '\0');
  set = (id: string, value: T) => void this.entries.set(this.keys.get(id)!, value);
  clear = () => this.entries.clear();
}

const OOM_TIPS = 'This error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.';

export class Executor {
  clientId: string | null = null;
  lastNodeId: string | null = null;
  private interrupted = false;
  private generation = 0;
  private wake: () => void = () => undefined;
  private readonly outputs = new SignatureCache<Value[]>();
  private readonly ui = new SignatureCache<{ meta: Record<string, unknown>; output: Record<string, unknown> }>();

  constructor(private readonly deps: Deps) {}

  /** nodes.interrupt_processing(): the running prompt stops at its next check. */
  interrupt(): void {
    this.interrupted = true;
    this.wake();
  }

  /** The engine restarted: the running prompt vanishes without a word, caches are empty. */
  reset(): void {
    this.generation++;
    this.outputs.clear();
    this.ui.clear();
    this.clientId = null;
    this.lastNodeId = null;
    this.wake();
  }

  private signatures(prompt: Prompt): Map<string, string> {
    const immediate = (id: string, order: Map<string, number>): unknown[] => {
      const node = prompt[id]!;
      const def = this.deps.registry.get(node.class_type)!;
      let changed: unknown = false;
      if (def.isChanged) {
        const file = this.deps.store.resolveAnnotated(String(node.inputs.image));
        changed = file ? createHash('sha256').update(file.bytes).digest('hex') : `NaN:${Math.random()}`;
      }
      const signature: unknown[] = [node.class_type, changed];
      if (def.uniqueIdHidden) signature.push(id);
      for (const key of Object.keys(node.inputs).sort()) {
        const value = node.inputs[key];
        signature.push(isLink(value) ? [key, ['ANCESTOR', order.get(value[0]), value[1]]] : [key, value]);
      }
      return signature;
    };
    const keys = new Map<string, string>();
    for (const id of Object.keys(prompt)) {
      const ancestors: string[] = [];
      const order = new Map<string, number>();
      const walk = (at: string) => {
        for (const key of Object.keys(prompt[at]?.inputs ?? {}).sort()) {
          const value = prompt[at]!.inputs[key];
          if (isLink(value) && !order.has(value[0]) && prompt[value[0]]) {
            ancestors.push(value[0]);
            order.set(value[0], ancestors.length - 1);
            walk(value[0]);
          }
        }
      };
      walk(id);
      keys.set(id, JSON.stringify([immediate(id, order), ...ancestors.map((a) => immediate(a, order))]));
    }
    return keys;
  }

  async execute(prompt: Prompt, promptId: string, extraData: Record<string, unknown>, executeOutputs: string[]): Promise<ExecResult | undefined> {
    const generation = this.generation;
    const alive = () => {
      if (generation !== this.generation) throw new Aborted();
    };
    const { hub, registry, faults } = this.deps;
    this.interrupted = false;
    this.clientId = typeof extraData.client_id === 'string' ? extraData.client_id : null;
    const sid = this.clientId;
    const messages: ExecResult['messages'] = [];
    const addMessage = (event: string, data: Record<string, unknown>, broadcast: boolean) => {
      const stamped = { ...data, timestamp: Date.now() };
      messages.push([event, stamped]);
      if (sid !== null || broadcast) hub.send(event, stamped, sid);
    };
    const progressNodes = new Map<string, { state: string; value: number; max: number }>();
    const progressState = (id: string, state: string, value?: number, max?: number) => {
      const entry = progressNodes.get(id) ?? { state: 'pending', value: 0, max: 1 };
      entry.state = state;
      if (max !== undefined) entry.max = max;
      entry.value = value ?? entry.max;
      progressNodes.set(id, entry);
      const nodes = Object.fromEntries(
        [...progressNodes].map(([nodeId, e]) => [nodeId, { value: e.value, max: e.max, state: e.state, node_id: nodeId, prompt_id: promptId, display_node_id: nodeId, parent_node_id: null, real_node_id: nodeId }]),
      );
      hub.send('progress_state', { prompt_id: promptId, nodes }, sid);
    };
    const checkInterrupt = () => {
      if (this.interrupted) throw new InterruptProcessing();
    };
    const hook = async (nodeId: string, value: number, total: number, preview?: Buffer) => {
      alive();
      checkInterrupt();
      progressState(nodeId, 'running', value, total);
      const withMetadata = hub.supportsPreviewMetadata(sid);
      const meta = { node_id: nodeId, prompt_id: promptId, display_node_id: nodeId, parent_node_id: null, real_node_id: nodeId };
      if (preview && withMetadata) hub.sendPreviewWithMetadata('JPEG', preview, meta, sid);
      hub.send('progress', { value, max: total, prompt_id: promptId, node: nodeId }, sid);
      if (preview && !withMetadata) hub.sendPreview('JPEG', preview, sid);
    };

    addMessage('execution_start', { prompt_id: promptId }, false);
    const keys = this.signatures(prompt);
    this.outputs.setPrompt(keys, this.deps.cache === 'classic');
    this.ui.setPrompt(keys, this.deps.cache === 'classic');
    const cached = Object.keys(prompt).filter((id) => this.outputs.get(id) !== undefined);
    addMessage('execution_cached', { nodes: cached, prompt_id: promptId }, false);
    const list = new ExecutionList(prompt, registry, (id) => this.outputs.get(id) !== undefined);
    for (const id of executeOutputs) list.addNode(id);
    const executed = new Set<string>();
    let failed = false;

    try {
      while (!list.isEmpty()) {
        const id = list.next();
        const node = prompt[id]!;
        const def = registry.get(node.class_type)!;
        if (this.outputs.get(id) !== undefined) {
          if (sid !== null) hub.send('executed', { node: id, display_node: id, output: this.ui.get(id)?.output ?? null, prompt_id: promptId }, sid);
          progressState(id, 'finished');
          list.complete(id);
          continue;
        }
        progressState(id, 'running', 0, 1);
        const args: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(node.inputs)) {
          args[name] = isLink(value) ? (this.outputs.get(value[0])?.[value[1]] ?? null) : value;
        }
        if (sid !== null) {
          this.lastNodeId = id;
          hub.send('executing', { node: id, display_node: id, prompt_id: promptId }, sid);
        }
        try {
          checkInterrupt();
          const nodeFault = faults.failNode;
          if (nodeFault && (nodeFault.match === id || nodeFault.match === node.class_type)) {
            faults.failNode = undefined;
            throw new PyError(nodeFault.exceptionType, nodeFault.message);
          }
          const call: NodeCall = {
            id, def, args, prompt, extraData, store: this.deps.store, random: this.deps.random,
            progress: (value, total) => hook(id, value, total),
            sample: async (steps, latent) => {
              const preview = this.deps.previews && steps > 0 ? await previewJpeg(latent.width, latent.height, Number(args.seed ?? 0)) : undefined;
              alive();
              await this.holdAt(0, alive);
              for (let step = 1; step <= steps; step++) {
                await sleep(faults.stepDelayMs);
                alive();
                const fail = faults.fail;
                if (fail && step >= fail.step && (fail.nodeId === undefined || fail.nodeId === id)) {
                  faults.fail = undefined;
                  throw new PyError(fail.exceptionType, fail.message);
                }
                await hook(id, step, steps, preview);
                await this.holdAt(step, alive);
              }
            },
          };
          const result = await NODE_RUNS[node.class_type]!(call);
          alive();
          if (result.ui) {
            this.ui.set(id, { meta: { node_id: id, display_node: id, parent_node: null, real_node_id: id }, output: result.ui });
            if (sid !== null) hub.send('executed', { node: id, display_node: id, output: result.ui, prompt_id: promptId }, sid);
          }
          this.outputs.set(id, result.outputs);
        } catch (error) {
          if (error instanceof Aborted) throw error;
          failed = true;
          const base = { prompt_id: promptId, node_id: id, node_type: node.class_type, executed: [...executed] };
          if (error instanceof InterruptProcessing) {
            addMessage('execution_interrupted', base, true);
          } else {
            const ex = error instanceof PyError ? error : new PyError('Exception', error instanceof Error ? error.message : String(error));
            const tips = ex.type === 'torch.OutOfMemoryError' ? OOM_TIPS : '';
            const currentInputs = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, [formatValue(value)]]));
            addMessage('execution_error', {
              ...base, exception_message: `${ex.message}\n${tips}`, exception_type: ex.type,
              traceback: fakeTraceback(def.pythonModule.replaceAll('.', '/') + '.py', node.class_type, `raise ${ex.type.split('.').pop()}(...)`),
              current_inputs: currentInputs, current_outputs: Object.keys(prompt),
            }, false);
          }
          break;
        }
        progressState(id, 'finished');
        executed.add(id);
        list.complete(id);
      }
      if (!failed) addMessage('execution_success', { prompt_id: promptId }, false);
    } catch (error) {
      if (error instanceof Aborted) return undefined;
      throw error;
    }
    const outputs: Record<string, unknown> = {};
    const meta: Record<string, unknown> = {};
    for (const id of Object.keys(prompt)) {
      const ui = this.ui.get(id);
      if (ui) {
        outputs[id] = ui.output;
        meta[id] = ui.meta;
      }
    }
    this.lastNodeId = null;
    return { success: !failed, messages, outputs, meta };
  }

  private async holdAt(step: number, alive: () => void): Promise<void> {
    const hold = this.deps.faults.hold;
    if (!hold || hold.step !== step) return;
    this.deps.faults.hold = undefined;
    hold.arrive();
    // An interrupt that came first needs no wait: the next progress hook raises it.
    if (!this.interrupted) await Promise.race([hold.gate, new Promise<void>((resolve) => (this.wake = resolve))]);
    this.wake = () => undefined;
    alive();
  }
}
