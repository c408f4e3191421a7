// Electron: the preload exposes window.studio (contextBridge); we only normalise its errors.
import type { StudioBridge, StudioEvent, StudioEvents, StudioInput, StudioMethod, StudioOutput } from '../../../shared/studio-contract';
import type { StudioClient } from './client';
import { toStudioError } from './studio-error';

export function createIpcClient(bridge: StudioBridge): StudioClient {
  return {
    kind: 'ipc',
    async call<M extends StudioMethod>(method: M, input: StudioInput<M>): Promise<StudioOutput<M>> {
      try {
        return await bridge.call(method, input);
      } catch (error) {
        throw toStudioError(error);
      }
    },
    on<E extends StudioEvent>(event: E, listener: (payload: StudioEvents[E]) => void): () => void {
      return bridge.on(event, listener);
    },
    mediaUrl: (path) => bridge.mediaUrl(path),
    // IPC events cannot be dropped while the window lives.
    onReconnect: () => () => {},
    onDisconnect: () => () => {},
  };
}
