// The execution order, ported from comfy_execution/graph.py: TopologicalSort/ExecutionList (a
// topological dissolve; cached ancestors are not added) and ux_friendly_pick_node (an output node
// first, then a node feeding an output, then one two links away, else the first ready one).
import { isLink, type Prompt } from './comfyui-graph.js';
import type { NodeDef } from './comfyui-nodes.js';
import { PyError } from './comfyui-python.js';

/** comfy_execution/graph.py ExecutionList, without lazy inputs, subgraphs or async nodes. */
export class ExecutionList {
  private pending = new Map<string, true>();
  private blockCount = new Map<string, number>();
  private blocking = new Map<string, Set<string>>();

  constructor(
    private readonly prompt: Prompt,
    private readonly registry: Map<string, NodeDef>,
    private readonly isCached: (id: string) => boolean,
  ) {}

  addNode(id: string): void {
    const stack = [id];
    const links: [string, string][] = [];
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (this.pending.has(current)) continue;
      this.pending.set(current, true);
      this.blockCount.set(current, 0);
      this.blocking.set(current, new Set());
      for (const value of Object.values(this.prompt[current]!.inputs)) {
        if (isLink(value) && !this.isCached(value[0])) {
          stack.push(value[0]);
          links.push([value[0], current]);
        }
      }
    }
    for (const [from, to] of links) this.addStrongLink(from, to);
  }

  private addStrongLink(from: string, to: string): void {
    if (this.isCached(from)) return;
    this.addNode(from);
    const blocked = this.blocking.get(from)!;
    if (!blocked.has(to)) {
      blocked.add(to);
      this.blockCount.set(to, (this.blockCount.get(to) ?? 0) + 1);
    }
  }

  isEmpty(): boolean {
    return this.pending.size === 0;
  }

  /** The next node to run (stage_node_execution + ux_friendly_pick_node). */
  next(): string {
    const available = [...this.pending.keys()].filter((id) => this.blockCount.get(id) === 0);
    if (available.length === 0) throw new PyError('graph.DependencyCycleError', 'Dependency cycle detected');
    const isOutput = (id: string) => this.registry.get(this.prompt[id]!.class_type)?.outputNode === true;
    const blocks = (id: string) => [...(this.blocking.get(id) ?? [])];
    return (
      available.find(isOutput) ??
      available.find((id) => blocks(id).some(isOutput)) ??
      available.find((id) => blocks(id).some((b) => blocks(b).some(isOutput))) ??
      available[0]!
    );
  }

  complete(id: string): void {
    this.pending.delete(id);
    for (const blocked of this.blocking.get(id) ?? []) this.blockCount.set(blocked, (this.blockCount.get(blocked) ?? 0) - 1);
    this.blocking.delete(id);
  }
}
