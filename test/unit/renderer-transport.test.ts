import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioBridge } from '../../shared/studio-contract.js';
import { createIpcClient } from '../../renderer/src/transport/ipc-client.js';
import { pickTransport } from '../../renderer/src/transport/pick-transport.js';
import { StudioError, formatError } from '../../renderer/src/transport/studio-error.js';

const GOOD = 'owner-token';
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/studio/session' && req.headers.authorization === `Bearer ${GOOD}`) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(401, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'The studio needs the owner token', type: 'invalid_api_key', code: 'invalid_api_key', param: null } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function fakeWindow(hash: string, studio?: StudioBridge) {
  const storage = new Map<string, string>();
  const win = {
    studio,
    location: { hash, pathname: '/studio/', search: '', origin },
    history: { replaceState: () => {} },
    sessionStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    },
  };
  return { win: win as unknown as Window, storage };
}

const bridge = (call: StudioBridge['call']): StudioBridge => ({ call, on: () => () => {}, mediaUrl: (p) => `studio-media://media/${p}` });

describe('transport choice', () => {
  it('uses window.studio when the Electron preload exposed it, even with a token in the URL', async () => {
    const { win } = fakeWindow('#token=whatever', bridge(async () => ({ models: [] }) as never));
    const choice = await pickTransport(win);
    expect(choice.kind).toBe('ready');
    if (choice.kind === 'ready') {
      expect(choice.client.kind).toBe('ipc');
      expect(choice.client.mediaUrl('videos/a.mp4')).toBe('studio-media://media/videos/a.mp4');
    }
  });

  it('asks for the studio URL when there is neither a bridge nor a token', async () => {
    expect(await pickTransport(fakeWindow('').win)).toEqual({ kind: 'no-token' });
  });

  it('opens an HTTP session with the token from the URL', async () => {
    const { win, storage } = fakeWindow(`#token=${GOOD}`);
    const choice = await pickTransport(win);
    expect(choice.kind === 'ready' && choice.client.kind).toBe('http');
    expect(storage.get('mgw.studio.token')).toBe(GOOD);
  });

  it('reports a refused token as "code: message" and forgets it', async () => {
    const { win, storage } = fakeWindow('#token=stale');
    const choice = await pickTransport(win);
    expect(choice).toEqual({ kind: 'session-failed', message: 'invalid_api_key: The studio needs the owner token' });
    expect(storage.has('mgw.studio.token')).toBe(false);
  });
});

describe('IPC client', () => {
  it('turns the preload rejection (a plain {message, code, param} object) into a StudioError', async () => {
    const client = createIpcClient(
      bridge(async () => {
        throw { message: 'Insufficient balance: needs $0.20', type: 'insufficient_balance', code: 'insufficient_balance', param: null };
      }),
    );
    const error = await client.call('videos.create', { model: 'local-video', prompt: 'x', seconds: 4 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(formatError(error)).toBe('insufficient_balance: Insufficient balance: needs $0.20');
  });

  it('passes outputs through unchanged', async () => {
    const client = createIpcClient(bridge(async (method, input) => ({ method, input }) as never));
    expect(await client.call('gallery.list', { limit: 3 })).toEqual({ method: 'gallery.list', input: { limit: 3 } });
  });
});
