// The Electron shell's wiring, with `electron` and `electron-store` mocked (the Electron binary
// cannot be installed on these machines): window hardening, the IPC bridge and its sender
// check, the protocols and CSP, single-instance behaviour, and safeStorage secrets.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../shared/studio-contract.js';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  const state = {
    lock: true,
    quit: 0,
    appHandlers: new Map<string, Handler>(),
    windows: [] as { options: Record<string, unknown>; url: string | null; sent: unknown[][]; contents: { handlers: Map<string, Handler>; openHandler: Handler | null } }[],
    ipc: new Map<string, Handler>(),
    protocols: new Map<string, Handler>(),
    privileged: [] as unknown[],
    permissionHandler: null as Handler | null,
    /** What app.getPath('userData') answers. */
    userData: '/nonexistent',
  };
  const makeContents = () => {
    const contents = {
      handlers: new Map<string, Handler>(),
      openHandler: null as Handler | null,
      on(event: string, handler: Handler) {
        contents.handlers.set(event, handler);
        return contents;
      },
      setWindowOpenHandler(handler: Handler) {
        contents.openHandler = handler;
      },
      send: (...args: unknown[]) => state.windows.at(-1)?.sent.push(args),
      isDestroyed: () => false,
    };
    return contents;
  };
  class BrowserWindow {
    webContents = makeContents();
    record: (typeof state.windows)[number];
    constructor(options: Record<string, unknown>) {
      this.record = { options, url: null, sent: [], contents: this.webContents };
      state.windows.push(this.record);
      state.appHandlers.get('web-contents-created')?.({}, this.webContents);
    }
    once() {}
    show() {}
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
    async loadURL(url: string) {
      this.record.url = url;
    }
  }
  const electron = {
    app: {
      requestSingleInstanceLock: () => state.lock,
      quit: () => void state.quit++,
      whenReady: async () => undefined,
      on: (event: string, handler: Handler) => void state.appHandlers.set(event, handler),
      getPath: () => state.userData,
    },
    BrowserWindow,
    ipcMain: { handle: (channel: string, handler: Handler) => void state.ipc.set(channel, handler) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => void state.privileged.push(...schemes),
      handle: (scheme: string, handler: Handler) => void state.protocols.set(scheme, handler),
    },
    net: { fetch: async () => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }) },
    safeStorage: {
      encryptString: (value: string) => Buffer.from(`sealed:${value}`),
      decryptString: (buffer: Buffer) => buffer.toString().replace(/^sealed:/, ''),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: Handler) => void (state.permissionHandler = handler),
        setPermissionCheckHandler: () => undefined,
      },
    },
  };
  return { state, electron };
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));
const storeNames = vi.hoisted(() => [] as string[]);
vi.mock('electron-store', () => ({
  default: class {
    private data: Record<string, unknown>;
    constructor(options: { name?: string; defaults: Record<string, unknown> }) {
      storeNames.push(options.name ?? 'config');
      this.data = { ...options.defaults, port: 0 };
    }
    get(key: string) {
      return this.data[key];
    }
    set(key: string, value: unknown) {
      this.data[key] = value;
    }
  },
}));

process.env.MGW_DATA_DIR = mkdtempSync(join(tmpdir(), 'mgw-shell-'));
process.env.MGW_LOG_LEVEL = 'silent';
const { startShell, safeStorageSecrets } = await import('../../electron/main.js');
const { rendererFile } = await import('../../electron/shell/app-protocols.js');
const { FileSecretStore, SharedDirSecretStore } = await import('../../electron/core/secret-store.js');

afterAll(() => {
  fake.state.appHandlers.get('before-quit')?.();
});

describe('single instance', () => {
  beforeEach(() => {
    fake.state.quit = 0;
  });
  it('a second instance quits without opening a window', async () => {
    fake.state.lock = false;
    const windows = fake.state.windows.length;
    await startShell();
    expect(fake.state.quit).toBe(1);
    expect(fake.state.windows.length).toBe(windows);
    fake.state.lock = true;
  });
});

describe('the running shell', () => {
  it('opens one hardened window on the studio page', async () => {
    await startShell();
    const win = fake.state.windows.at(-1)!;
    expect(win.url).toBe('app://studio/index.html');
    const prefs = win.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload\.cjs$/);

    const prevented = vi.fn();
    win.contents.handlers.get('will-navigate')!({ preventDefault: prevented }, 'https://evil.example.com');
    expect(prevented).toHaveBeenCalled();
    expect(win.contents.openHandler!({ url: 'https://evil.example.com' })).toEqual({ action: 'deny' });
    const permission = vi.fn();
    fake.state.permissionHandler!({}, 'media', permission);
    expect(permission).toHaveBeenCalledWith(false);
  });

  it('answers studio calls from the studio page only, with an envelope', async () => {
    const handler = fake.state.ipc.get(IPC_CALL_CHANNEL)!;
    const trusted = { senderFrame: { url: 'app://studio/index.html' } };
    const ok = (await handler(trusted, 'catalog.list', {})) as { ok: boolean; value: { models: { record: { id: string } }[] } };
    expect(ok.ok).toBe(true);
    expect(ok.value.models.map((m) => m.record.id)).toContain('local-image');

    const bad = (await handler(trusted, 'images.generate', { model: 'local-image' })) as { ok: boolean; error: { code: string; param: string } };
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request', param: 'prompt' } });

    for (const url of ['https://evil.example.com/', 'file:///tmp/x.html', 'app://studio.evil/index.html']) {
      const refused = (await handler({ senderFrame: { url } }, 'catalog.list', {})) as { ok: boolean; error: { code: string } };
      expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_api_key' } });
    }
  });

  it('serves the renderer through app:// with the CSP, and refuses paths outside the build', async () => {
    const response = (await fake.state.protocols.get('app')!(new Request('app://studio/index.html'))) as Response;
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'; script-src 'self'/);
    expect(rendererFile('app://studio/..%2F..%2Fpackage.json')).toBeNull();
    // Dot segments are resolved by the URL parser itself, so they stay inside the build.
    expect(rendererFile('app://studio/%2e%2e/%2e%2e/package.json')).toMatch(/dist[\\/]renderer[\\/]package\.json$/);
    expect(rendererFile('app://studio/assets/app.js')).toMatch(/dist[\\/]renderer[\\/]assets[\\/]app\.js$/);
    const media = (await fake.state.protocols.get('studio-media')!(new Request('studio-media://media/videos/video_aaaaaaaaaaaaaaaaaaaa.mp4'))) as Response;
    expect(media.status).toBe(404);
    expect(fake.state.privileged.map((s) => (s as { scheme: string }).scheme)).toEqual(['app', 'studio-media']);
  });

  it('pushes studio events to the window', async () => {
    const win = fake.state.windows.at(-1)!;
    const handler = fake.state.ipc.get(IPC_CALL_CHANNEL)!;
    await handler({ senderFrame: { url: 'app://studio/' } }, 'billing.topUp', { usd: '1' });
    await new Promise((r) => setTimeout(r, 20));
    expect(win.sent.some(([channel, event]) => channel === IPC_EVENT_CHANNEL && event === 'billing.changed')).toBe(true);
  });
});

describe('data dir', () => {
  // Checked through XDG_DATA_HOME, so on Linux (where Electron's userData is ~/.config/<name>).
  it.runIf(process.platform === 'linux')('is the one mgw uses (MGW_DATA_DIR, else the app-data folder), not Electron userData', async () => {
    const { resolveDataDir } = await import('../../electron/core/config.js');
    const saved = { dir: process.env.MGW_DATA_DIR, xdg: process.env.XDG_DATA_HOME };
    const root = mkdtempSync(join(tmpdir(), 'mgw-shell-default-'));
    fake.state.userData = join(root, 'electron-user-data');
    delete process.env.MGW_DATA_DIR;
    process.env.XDG_DATA_HOME = join(root, 'xdg-data');
    try {
      await startShell();
      const cliDir = resolveDataDir();
      expect(cliDir.startsWith(root)).toBe(true);
      expect(existsSync(join(cliDir, 'gateway.db'))).toBe(true);
      expect(existsSync(fake.state.userData)).toBe(false);
    } finally {
      process.env.MGW_DATA_DIR = saved.dir;
      if (saved.xdg === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved.xdg;
    }
  });
});

describe('provider secrets', () => {
  it('are sealed with safeStorage and never stored in the clear', async () => {
    const Store = (await import('electron-store')).default as unknown as new (o: { defaults: Record<string, unknown> }) => { get(k: string): unknown };
    const settings = new Store({ defaults: { secrets: {} } });
    const secrets = safeStorageSecrets(settings as never);
    secrets.set('openai', 'sk-live-secret');
    expect(JSON.stringify(settings.get('secrets'))).not.toContain('sk-live-secret');
    expect(secrets.get('openai')).toBe('sk-live-secret');
    secrets.delete('openai');
    expect(secrets.get('openai')).toBeNull();
  });

  it('a key mgw wrote to the shared data dir is used, and the newer of the two wins', async () => {
    const Store = (await import('electron-store')).default as unknown as new (o: { defaults: Record<string, unknown> }) => { get(k: string): unknown };
    const settings = new Store({ defaults: { secrets: {} } });
    const dir = mkdtempSync(join(tmpdir(), 'mgw-shell-secrets-'));
    const cli = new FileSecretStore(dir);
    const desktop = new SharedDirSecretStore(safeStorageSecrets(settings as never), new FileSecretStore(dir));
    cli.set('provider:up', 'sk-from-cli');
    expect(desktop.get('provider:up')).toBe('sk-from-cli');
    // Re-keyed in the desktop app: sealed, and gone from the plain file.
    desktop.set('provider:up', 'sk-from-desktop');
    expect(desktop.get('provider:up')).toBe('sk-from-desktop');
    expect(cli.get('provider:up')).toBeNull();
    expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).not.toContain('sk-from-desktop');
    // Re-keyed again with mgw: the file's key is the newer one.
    cli.set('provider:up', 'sk-rotated-by-cli');
    expect(desktop.get('provider:up')).toBe('sk-rotated-by-cli');
    desktop.delete('provider:up');
    expect(desktop.get('provider:up')).toBeNull();
  });

  it('a provider added with mgw in the shared data dir has its key in the desktop app', async () => {
    const { createGateway } = await import('../../electron/core/gateway.js');
    const headless = await createGateway({ dataDir: process.env.MGW_DATA_DIR! });
    await headless.providerConfigs.add({ id: 'cli-up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-cli-added' });
    await headless.close();
    await startShell();
    const handler = fake.state.ipc.get(IPC_CALL_CHANNEL)!;
    const listed = (await handler({ senderFrame: { url: 'app://studio/index.html' } }, 'providers.list', {})) as { value: { providers: { id: string; key_source: string }[] } };
    expect(listed.value.providers.find((p) => p.id === 'cli-up')?.key_source).toBe('stored');
  });

  it("the shell's own settings are not the data dir's config.json (one folder on macOS)", async () => {
    storeNames.length = 0;
    await startShell();
    expect(storeNames).toEqual(['desktop-settings']);
  });
});
