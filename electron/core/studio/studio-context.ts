import type { StudioInput, StudioMethod, StudioOutput } from '../../../shared/studio-contract.js';
import type { Principal } from '../access/principal.js';
import type { Gateway } from '../gateway.js';
import type { StudioEventBus } from './studio-events.js';

/** What every studio handler may use: the core services and the owner it acts as. */
export interface StudioContext {
  gateway: Gateway;
  owner: Principal;
  version: string;
  /** The public API base URL when an HTTP door is open, for the Keys view's curl snippet. */
  apiBaseUrl(): string | null;
  /** Pushes events to the studio (progress of the request a handler runs). */
  events: StudioEventBus;
}

export type StudioHandler<M extends StudioMethod> = (input: StudioInput<M>) => Promise<StudioOutput<M>>;

/** One handler per method: leaving one out is a compile error where the map is built. */
export type StudioHandlers = { [M in StudioMethod]: StudioHandler<M> };
