// Push events for the studio (task updates, catalog, balance, activity), fed by the core
// services; the IPC bridge and the SSE route each subscribe once.
import type { StudioEvent, StudioEvents } from '../../../shared/studio-contract.js';

export type StudioEventListener = <E extends StudioEvent>(event: E, payload: StudioEvents[E]) => void;

export class StudioEventBus {
  private readonly listeners = new Set<StudioEventListener>();

  subscribe(listener: StudioEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends StudioEvent>(event: E, payload: StudioEvents[E]): void {
    for (const listener of this.listeners) listener(event, payload);
  }

  get size(): number {
    return this.listeners.size;
  }
}
