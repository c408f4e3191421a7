// What the stores and the app need from a transport: the contract's bridge plus a hook for
// "the event stream came back" (events may have been missed, so the stores reload).
import type { StudioBridge } from '../../../shared/studio-contract';

export type TransportKind = 'ipc' | 'http';

export interface StudioClient extends StudioBridge {
  readonly kind: TransportKind;
  onReconnect(listener: () => void): () => void;
  /** The event stream broke (the gateway stopped or restarted); onReconnect follows when it is back. */
  onDisconnect(listener: () => void): () => void;
}

/** The only part of the client a store needs; tests pass a fake. */
export type StudioCaller = Pick<StudioBridge, 'call'>;
