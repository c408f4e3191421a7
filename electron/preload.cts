// The only bridge between the sandboxed studio page and the main process: window.studio =
// {call, on, mediaUrl}. Sandboxed preloads are CommonJS, hence .cts. The channel names must
// equal IPC_CALL_CHANNEL / IPC_EVENT_CHANNEL of shared/studio-contract.ts (a test checks).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

export const CALL_CHANNEL = 'studio:call';
export const EVENT_CHANNEL = 'studio:event';

type Envelope = { ok: true; value: unknown } | { ok: false; error: { message: string; type: string; code: string; param: string | null } };

export const bridge = {
  /** Resolves with the method's output; rejects with the standard error object {message, type, code, param}. */
  async call(method: string, input: unknown): Promise<unknown> {
    const envelope = (await ipcRenderer.invoke(CALL_CHANNEL, method, input)) as Envelope;
    if (envelope.ok) return envelope.value;
    // A plain object survives the context bridge intact; an Error would keep only its message.
    throw { ...envelope.error };
  },
  on(event: string, listener: (payload: unknown) => void): () => void {
    const handler = (_event: IpcRendererEvent, name: string, payload: unknown) => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  },
  mediaUrl(path: string): string {
    return `studio-media://media/${path.split('/').map(encodeURIComponent).join('/')}`;
  },
};

contextBridge.exposeInMainWorld('studio', bridge);
