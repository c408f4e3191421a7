// The preload bridge with electron mocked: channel names match the contract, calls unwrap the
// envelope (errors keep code and param across the context bridge), events are filtered.
// The compiled preload (CommonJS, as Electron's sandbox loads it) runs with an injected require.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../shared/studio-contract.js';

const fake = {
  exposed: new Map<string, unknown>(),
  listeners: new Map<string, Set<(...args: unknown[]) => void>>(),
  invoke: vi.fn(),
};

function loadPreload() {
  const electron = {
    contextBridge: { exposeInMainWorld: (name: string, value: unknown) => fake.exposed.set(name, value) },
    ipcRenderer: {
      invoke: fake.invoke,
      on: (channel: string, listener: (...args: unknown[]) => void) => {
        if (!fake.listeners.has(channel)) fake.listeners.set(channel, new Set());
        fake.listeners.get(channel)!.add(listener);
      },
      removeListener: (channel: string, listener: (...args: unknown[]) => void) => fake.listeners.get(channel)?.delete(listener),
    },
  };
  const source = readFileSync(fileURLToPath(new URL('../../dist/electron/preload.cjs', import.meta.url)), 'utf8');
  const module = { exports: {} as Record<string, unknown> };
  const fakeRequire = (name: string) => {
    if (name !== 'electron') throw new Error(`the preload may only require electron, not ${name}`);
    return electron;
  };
  new Function('exports', 'require', 'module', source)(module.exports, fakeRequire, module);
  return module.exports as {
    CALL_CHANNEL: string;
    EVENT_CHANNEL: string;
    bridge: { call(m: string, i: unknown): Promise<unknown>; on(e: string, l: (p: unknown) => void): () => void; mediaUrl(p: string): string };
  };
}

const preload = loadPreload();

describe('preload bridge', () => {
  it('uses the contract channels and exposes window.studio', () => {
    expect(preload.CALL_CHANNEL).toBe(IPC_CALL_CHANNEL);
    expect(preload.EVENT_CHANNEL).toBe(IPC_EVENT_CHANNEL);
    expect(fake.exposed.get('studio')).toBe(preload.bridge);
  });

  it('resolves outputs and rejects with the standard error object', async () => {
    fake.invoke.mockResolvedValueOnce({ ok: true, value: { models: [] } });
    await expect(preload.bridge.call('catalog.list', {})).resolves.toEqual({ models: [] });
    expect(fake.invoke).toHaveBeenLastCalledWith(IPC_CALL_CHANNEL, 'catalog.list', {});
    fake.invoke.mockResolvedValueOnce({ ok: false, error: { message: 'Insufficient balance', type: 'insufficient_balance', code: 'insufficient_balance', param: null } });
    await expect(preload.bridge.call('images.generate', {})).rejects.toEqual({ message: 'Insufficient balance', type: 'insufficient_balance', code: 'insufficient_balance', param: null });
  });

  it('delivers only the subscribed event and unsubscribes', () => {
    const seen: unknown[] = [];
    const off = preload.bridge.on('videos.updated', (payload) => seen.push(payload));
    const emit = (...args: unknown[]) => fake.listeners.get(IPC_EVENT_CHANNEL)!.forEach((l) => l({}, ...args));
    emit('videos.updated', { video: { id: 'v1' } });
    emit('billing.changed', { account_id: 'a' });
    off();
    emit('videos.updated', { video: { id: 'v2' } });
    expect(seen).toEqual([{ video: { id: 'v1' } }]);
    expect(preload.bridge.mediaUrl('videos/video_x.mp4')).toBe('studio-media://media/videos/video_x.mp4');
  });
});
