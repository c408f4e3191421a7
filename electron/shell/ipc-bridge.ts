// The studio contract over IPC: one channel for calls (answered with an envelope, because
// Electron keeps only the message of a thrown error), one for pushed events. Calls from any
// frame other than the studio page are refused.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, type StudioErrorBody } from '../../shared/studio-contract.js';
import { GatewayError, isGatewayError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Studio } from '../core/studio/studio.js';
import { isStudioUrl } from './window-options.js';

export type IpcEnvelope = { ok: true; value: unknown } | ({ ok: false } & StudioErrorBody);

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>): boolean {
  // senderFrame is null once the frame has navigated or been destroyed.
  return isStudioUrl(event.senderFrame?.url);
}

export function installIpcBridge(ipcMain: IpcMain, studio: Studio, logger: Logger): void {
  ipcMain.handle(IPC_CALL_CHANNEL, async (event, method: unknown, input: unknown): Promise<IpcEnvelope> => {
    try {
      if (!isTrustedSender(event)) throw new GatewayError('invalid_api_key', 'Studio calls are accepted only from the studio window.');
      if (typeof method !== 'string') throw new GatewayError('invalid_request', 'The method must be a string.', 'method');
      return { ok: true, value: await studio.dispatch(method, input) };
    } catch (error) {
      if (isGatewayError(error)) return { ok: false, ...error.toBody() };
      logger.error({ err: error, method }, 'studio call failed');
      return { ok: false, ...new GatewayError('internal_error', 'Internal error in the studio call.').toBody() };
    }
  });
}

/** Forwards every studio event to the window; returns the unsubscribe function. */
export function forwardEvents(studio: Studio, contents: WebContents): () => void {
  return studio.events.subscribe((event, payload) => {
    if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event, payload);
  });
}
