// The Electron shell's wiring, with `electron` replaced by test/helpers/fake-electron.ts (the
// Electron binary cannot be installed on these machines; the fake throws where Electron does)
// and `electron-store` by a map: window hardening, the IPC bridge and its sender check, the
// protocols and CSP, single-instance behaviour, and safeStorage secrets. Each test launches the
// shell in a new fake process and quits it.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Libsql from 'libsql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../shared/studio-contract.js';
import { startOpenAIEmulator } from '../emulators/index.js';
import { fake, reset, type FakeBrowserWindow } from '../helpers/fake-electron.js';

vi.mock('electron', async () => {
  const { electron } = await import('../helpers/fake-electron.js');
  return { ...electron, default: electron };
});
const storeNames = vi.hoisted(() => [] as string[]);
/** Settings the next shell reads from its electron-store (port 0 unless a test says otherwise). */
const storeOverrides = vi.hoisted(() => ({}) as Record<string, unknown>);
vi.mock('electron-store', () => ({
  default: class {
    private data: Record<string, unknown>;
    constructor(options: { name?: string; defaults: Record<string, unknown> }) {
      storeNames.push(options.name ?? 'config');
      this.data = { ...options.defaults, port: 0, ...storeOverrides };
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
const { ELECTRON_CSP } = await import('../../electron/shell/window-options.js');
const { FileSecretStore, SharedDirSecretStore } = await import('../../electron/core/secret-store.js');
const { createGateway } = await import('../../electron/core/gateway.js');

type Envelope = { ok: boolean; value?: unknown; error?: { code: string; param: string | null } };
const STUDIO_FRAME = { senderFrame: { url: 'app://studio/index.html' } };

/** Starts the shell in a new fake process; resolves with its window once the page loaded. */
async function launch(): Promise<FakeBrowserWindow> {
  reset();
  await startShell();
  const window = fake.state.windows.at(-1);
  if (!window) throw new Error('the shell opened no window');
  return window;
}

function call(method: string, input: unknown, event: unknown = STUDIO_FRAME): Promise<Envelope> {
  return fake.state.ipc.get(IPC_CALL_CHANNEL)!(event as never, method as never, input as never) as Promise<Envelope>;
}

/** Quits as a user would (app.quit()) and waits until the process would have ended. */
async function quit(): Promise<number> {
  fake.app.quit();
  return fake.app.whenExited();
}

afterEach(async () => {
  if (fake.state.exitCode === null) await quit();
  for (const key of Object.keys(storeOverrides)) delete storeOverrides[key];
});

/** Activity entries written to the data dir's database (read synchronously, so at any moment). */
function storedActivity(): number {
  const db = new Libsql(join(process.env.MGW_DATA_DIR!, 'gateway.db'), { readonly: true });
  try {
    return (db.prepare('select count(*) as n from request_log').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Quits, and answers the exit code with what was written and served when the process ended. */
async function quitAndLook(apiBaseUrl: string | null): Promise<{ code: number; activity: number }> {
  let activity = -1;
  fake.state.onExit = () => (activity = storedActivity());
  const code = await quit();
  // Nothing of the old process may answer after it ended.
  if (apiBaseUrl) await expect(fetch(`${apiBaseUrl}/models`)).rejects.toThrow();
  return { code, activity };
}

describe('single instance', () => {
  it('a second instance quits without opening a window', async () => {
    reset();
    fake.state.lock = false;
    await startShell();
    expect(await fake.app.whenExited()).toBe(0);
    expect(fake.state.windows).toEqual([]);
    expect(fake.state.ipc.size).toBe(0);
  });
});

describe('the running shell', () => {
  it('opens one hardened window on the studio page', async () => {
    const win = await launch();
    expect(win.url).toBe('app://studio/index.html');
    expect(win.shown).toBe(true);
    const prefs = win.options.webPreferences as Record<string, unknown>;
    // Every hardening flag, spelled out: Electron's defaults differ between versions, so none is left to them.
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(Object.keys(prefs).filter((name) => /experimental|enableBlinkFeatures|enableRemoteModule|plugins/i.test(name))).toEqual([]);
    expect(String(prefs.preload)).toMatch(/preload\.cjs$/);

    // Navigation, a server redirect of the page and an attached <webview> are each refused.
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const prevented = vi.fn();
      win.webContents.emit(event, { preventDefault: prevented }, 'https://evil.example.com');
      expect(prevented, event).toHaveBeenCalled();
    }
    expect(win.webContents.openHandler!({ url: 'https://evil.example.com' } as never)).toEqual({ action: 'deny' });
  });

  it('refuses permissions, but copying and full screen to the studio page itself', async () => {
    const win = await launch();
    const requested = (permission: string, requestingUrl: string, isMainFrame = true) => {
      const callback = vi.fn();
      fake.state.permissionRequest!(win.webContents as never, permission as never, callback as never, { requestingUrl, isMainFrame } as never);
      expect(callback).toHaveBeenCalledTimes(1);
      return callback.mock.calls[0]![0] as boolean;
    };
    const checked = (permission: string, origin: string, isMainFrame = true) =>
      fake.state.permissionCheck!(win.webContents as never, permission as never, origin as never, { requestingUrl: `${origin}/index.html`, isMainFrame } as never);
    // navigator.clipboard.writeText (the copy buttons) and the <video> full-screen button.
    for (const permission of ['clipboard-sanitized-write', 'fullscreen']) {
      expect(requested(permission, 'app://studio/index.html'), permission).toBe(true);
      expect(checked(permission, 'app://studio'), permission).toBe(true);
      expect(checked(permission, 'app://studio/'), permission).toBe(true);
      expect(requested(permission, 'app://studio/index.html', false), permission).toBe(false);
      expect(checked(permission, 'app://studio', false), permission).toBe(false);
      expect(requested(permission, 'https://evil.example.com/'), permission).toBe(false);
      expect(checked(permission, 'https://evil.example.com'), permission).toBe(false);
    }
    for (const permission of ['media', 'clipboard-read', 'notifications', 'geolocation', 'openExternal', 'display-capture']) {
      expect(requested(permission, 'app://studio/index.html'), permission).toBe(false);
      expect(checked(permission, 'app://studio'), permission).toBe(false);
    }
  });

  it('answers studio calls from the studio page only, with an envelope', async () => {
    await launch();
    const ok = await call('catalog.list', {});
    expect(ok.ok).toBe(true);
    expect((ok.value as { models: { record: { id: string } }[] }).models.map((m) => m.record.id)).toContain('local-image');

    expect(await call('images.generate', { model: 'local-image' })).toMatchObject({ ok: false, error: { code: 'invalid_request', param: 'prompt' } });

    for (const event of [{ senderFrame: { url: 'https://evil.example.com/' } }, { senderFrame: { url: 'file:///tmp/x.html' } }, { senderFrame: { url: 'app://studio.evil/index.html' } }, { senderFrame: null }]) {
      expect(await call('catalog.list', {}, event)).toMatchObject({ ok: false, error: { code: 'invalid_api_key' } });
    }
  });

  it('serves the renderer through app:// with the CSP, and refuses paths outside the build', async () => {
    await launch();
    const response = await fake.state.protocols.get('app')!(new Request('app://studio/index.html'));
    expect(response.headers.get('content-security-policy')).toBe(ELECTRON_CSP);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    // The built page's own scripts and styles carry the same policy.
    const assets = [...(await response.text()).matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      const served = await fake.state.protocols.get('app')!(new Request(`app://studio/${asset}`));
      expect(served.status, asset).toBe(200);
      expect(served.headers.get('content-security-policy'), asset).toBe(ELECTRON_CSP);
    }
    expect((await fake.state.protocols.get('app')!(new Request('app://studio/assets/no-such-file.js'))).status).toBe(404);
    expect(rendererFile('app://studio/..%2F..%2Fpackage.json')).toBeNull();
    // Dot segments are resolved by the URL parser itself, so they stay inside the build.
    expect(rendererFile('app://studio/%2e%2e/%2e%2e/package.json')).toMatch(/dist[\\/]renderer[\\/]package\.json$/);
    expect(rendererFile('app://studio/assets/app.js')).toMatch(/dist[\\/]renderer[\\/]assets[\\/]app\.js$/);
    const media = await fake.state.protocols.get('studio-media')!(new Request('studio-media://media/videos/video_aaaaaaaaaaaaaaaaaaaa.mp4'));
    expect(media.status).toBe(404);
    expect(fake.state.privileged.map((s) => s.scheme)).toEqual(['app', 'studio-media']);
  });

  it('serves studio-media with byte ranges: 206 and Content-Range, as a <video> needs to seek', async () => {
    await launch();
    const generated = await call('images.generate', { model: 'local-image', prompt: 'a red kite over hills' });
    const { media } = (generated.value as { item: { media: string } }).item;
    const url = `studio-media://media/${media}`;
    const media_ = fake.state.protocols.get('studio-media')!;

    const whole = await media_(new Request(url));
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(whole.headers.get('content-length'))).toBe(bytes.length);

    const part = await media_(new Request(url, { headers: { range: 'bytes=8-99' } }));
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8-99/${bytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(8, 100));

    const tail = await media_(new Request(url, { headers: { range: `bytes=${bytes.length - 10}-` } }));
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));

    const beyond = await media_(new Request(url, { headers: { range: `bytes=${bytes.length}-` } }));
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('pushes studio events to the window', async () => {
    const win = await launch();
    const before = win.webContents.sent.length;
    await call('billing.topUp', { usd: '1' });
    const pushed = await win.webContents.whenSent(([channel, event]) => channel === IPC_EVENT_CHANNEL && event === 'billing.changed', before);
    expect(pushed.slice(0, 2)).toEqual([IPC_EVENT_CHANNEL, 'billing.changed']);
  });
});

describe('lifecycle', () => {
  it('quitting waits for the gateway: the HTTP door is closed and the last activity entry written before the process ends', async () => {
    await launch();
    const info = (await call('system.info', {})).value as { api_base_url: string };
    expect(info.api_base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const before = storedActivity();
    expect(await call('images.generate', { model: 'local-image', prompt: 'a lighthouse at dusk' })).toMatchObject({ ok: true });
    // At once, while the entry is still in the activity log's write batch.
    expect(await quitAndLook(info.api_base_url)).toEqual({ code: 0, activity: before + 1 });
  });

  it('with the HTTP door down (its port taken), the studio works and quitting still closes the gateway', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    storeOverrides.port = (taken.address() as { port: number }).port;
    try {
      await launch();
      expect(((await call('system.info', {})).value as { api_base_url: string | null }).api_base_url).toBeNull();
      const before = storedActivity();
      expect(await call('images.generate', { model: 'local-image', prompt: 'a harbour in fog' })).toMatchObject({ ok: true });
      expect(await quitAndLook(null)).toEqual({ code: 0, activity: before + 1 });
    } finally {
      taken.close();
    }
  });

  it('a start that fails says why and ends the process (it would hold the single-instance lock with no window)', async () => {
    const saved = process.env.MGW_DATA_DIR;
    const notADir = join(mkdtempSync(join(tmpdir(), 'mgw-shell-bad-')), 'a-file');
    writeFileSync(notADir, 'not a directory');
    process.env.MGW_DATA_DIR = notADir;
    try {
      reset();
      await startShell();
      expect(await fake.app.whenExited()).toBe(1);
      expect(fake.state.errorBoxes).toHaveLength(1);
      expect(fake.state.errorBoxes[0]!.title).toMatch(/could not start/);
      expect(fake.state.windows).toEqual([]);
    } finally {
      process.env.MGW_DATA_DIR = saved;
    }
  });

  it('a page that fails to load ends the process too', async () => {
    reset();
    fake.state.loadError = 'ERR_FAILED (-2)';
    await startShell();
    expect(await fake.app.whenExited()).toBe(1);
    expect(fake.state.errorBoxes[0]!.content).toMatch(/ERR_FAILED/);
  });

  it('a second instance brings the window back (restored, shown, focused)', async () => {
    const win = await launch();
    win.minimized = true;
    fake.app.emit('second-instance', {}, ['electron', '.'], '/');
    expect(win.minimized).toBe(false);
    expect(win.focused).toBe(1);
  });

  it('closing the window quits the app, through the same clean shutdown', async () => {
    const win = await launch();
    win.destroy();
    expect(await fake.app.whenExited()).toBe(0);
  });
});

describe('data dir', () => {
  // Checked through XDG_DATA_HOME, so on Linux (where Electron's userData is ~/.config/<name>).
  it.runIf(process.platform === 'linux')('is the one mgw uses (MGW_DATA_DIR, else the app-data folder), not Electron userData', async () => {
    const { resolveDataDir } = await import('../../electron/core/config.js');
    const saved = { dir: process.env.MGW_DATA_DIR, xdg: process.env.XDG_DATA_HOME };
    const root = mkdtempSync(join(tmpdir(), 'mgw-shell-default-'));
    delete process.env.MGW_DATA_DIR;
    process.env.XDG_DATA_HOME = join(root, 'xdg-data');
    try {
      reset();
      fake.state.userData = join(root, 'electron-user-data');
      await startShell();
      const cliDir = resolveDataDir();
      expect(cliDir.startsWith(root)).toBe(true);
      expect(existsSync(join(cliDir, 'gateway.db'))).toBe(true);
      expect(existsSync(fake.state.userData)).toBe(false);
      await quit();
    } finally {
      process.env.MGW_DATA_DIR = saved.dir;
      if (saved.xdg === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved.xdg;
    }
  });
});

describe('provider secrets', () => {
  async function sealedSettings() {
    reset();
    await fake.app.whenReady();
    const Store = (await import('electron-store')).default as unknown as new (o: { defaults: Record<string, unknown> }) => { get(k: string): unknown };
    return new Store({ defaults: { secrets: {} } });
  }

  it('are sealed with safeStorage and never stored in the clear', async () => {
    const settings = await sealedSettings();
    const secrets = safeStorageSecrets(settings as never);
    secrets.set('openai', 'sk-live-secret');
    expect(JSON.stringify(settings.get('secrets'))).not.toContain('sk-live-secret');
    expect(secrets.get('openai')).toBe('sk-live-secret');
    secrets.delete('openai');
    expect(secrets.get('openai')).toBeNull();
  });

  it('a key mgw wrote to the shared data dir is used, and the newer of the two wins', async () => {
    const settings = await sealedSettings();
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
    const headless = await createGateway({ dataDir: process.env.MGW_DATA_DIR! });
    await headless.providerConfigs.add({ id: 'cli-up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-cli-added' });
    await headless.close();
    await launch();
    const listed = (await call('providers.list', {})).value as { providers: { id: string; key_source: string }[] };
    expect(listed.providers.find((p) => p.id === 'cli-up')?.key_source).toBe('stored');
  });

  it('a sealed key the keychain no longer decrypts is no usable key: the list, the test and a request say so, nothing fails, and entering it again fixes it', async () => {
    const upstream = await startOpenAIEmulator({ exactSize: true });
    try {
      const headless = await createGateway({ dataDir: process.env.MGW_DATA_DIR! });
      await headless.providerConfigs.add({ id: 'relock', kind: 'openai', baseUrl: upstream.baseUrl, apiKey: upstream.apiKey });
      const image = structuredClone((await headless.catalog.find('local-image'))!.record);
      const record = { ...image, id: 'relock-image', owned_by: 'relock', pricing: { input: 10, output: 40, currency: 'USD', unit: '1M tokens' } };
      await headless.catalog.put({ record: { ...record, capabilities: { ...image.capabilities, supported_sizes: ['1024x1024'] } }, providerId: 'relock', upstreamModel: 'gpt-image-1' });
      await headless.close();
      await launch();
      // Keyed in the app: sealed by this keychain, gone from the data dir's file.
      expect(await call('providers.update', { id: 'relock', api_key: upstream.apiKey })).toMatchObject({ ok: true });
      expect(readFileSync(join(process.env.MGW_DATA_DIR!, 'secrets.json'), 'utf8')).not.toContain(upstream.apiKey);
      fake.state.keychain++;

      const problem = /^The stored key of provider relock cannot be read: the OS keychain could not decrypt it .*; enter it again \(mgw providers update --id relock --api-key KEY, or Edit in the studio's Providers view\)\.$/;
      const listed = async () => ((await call('providers.list', {})).value as { providers: { id: string; key_source: string; key_problem: string | null }[] }).providers.find((p) => p.id === 'relock');
      expect(await listed()).toMatchObject({ key_source: 'stored', key_problem: expect.stringMatching(problem) });
      expect(await call('providers.test', { id: 'relock' })).toMatchObject({ ok: true, value: { ok: false, message: expect.stringMatching(problem) } });
      const seen = upstream.requests.length;
      expect(await call('images.generate', { model: 'relock-image', prompt: 'a lighthouse', size: '1024x1024' })).toMatchObject({
        ok: false,
        error: { code: 'upstream_unavailable', message: expect.stringMatching(/^The provider "relock" behind this model has no usable API key/) },
      });
      expect(upstream.requests.length).toBe(seen);

      // Entered again: sealed by the new keychain, and the provider works.
      expect(await call('providers.update', { id: 'relock', api_key: upstream.apiKey })).toMatchObject({ ok: true, value: { provider: { key_problem: null } } });
      expect(await listed()).toMatchObject({ key_source: 'stored', key_problem: null });
      expect(await call('providers.test', { id: 'relock' })).toMatchObject({ ok: true, value: { ok: true } });
      expect(await call('images.generate', { model: 'relock-image', prompt: 'a lighthouse', size: '1024x1024' })).toMatchObject({ ok: true });
      expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${upstream.apiKey}`);
      expect(await call('providers.remove', { id: 'relock', remove_models: true })).toMatchObject({ ok: true });
    } finally {
      await upstream.close();
    }
  });

  it('with no OS keychain (safeStorage cannot encrypt), a key is kept in the data dir as mgw keeps it', async () => {
    reset();
    fake.state.encryptionAvailable = false;
    await startShell();
    const added = await call('providers.add', { id: 'no-keychain', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-no-keychain' });
    expect(added).toMatchObject({ ok: true, value: { provider: { id: 'no-keychain', key_source: 'stored' } } });
    const file = join(process.env.MGW_DATA_DIR!, 'secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ 'provider:no-keychain': 'sk-no-keychain' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await call('providers.remove', { id: 'no-keychain' });
  });

  it('with no OS keychain now, a key sealed when there was one is listed as unreadable, not as no key, until it is entered again', async () => {
    const headless = await createGateway({ dataDir: process.env.MGW_DATA_DIR! });
    await headless.providerConfigs.add({ id: 'was-sealed', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1' });
    await headless.close();
    storeOverrides.secrets = { 'provider:was-sealed': Buffer.from('sealed:1:sk-sealed-earlier').toString('base64') };
    reset();
    fake.state.encryptionAvailable = false;
    await startShell();
    const listed = async () => ((await call('providers.list', {})).value as { providers: { id: string; key_source: string; key_problem: string | null }[] }).providers.find((p) => p.id === 'was-sealed');
    expect(await listed()).toMatchObject({
      key_source: 'stored',
      key_problem: expect.stringMatching(/^The stored key of provider was-sealed cannot be read: it was sealed by the OS keychain, which is not available now; enter it again/),
    });
    expect(await call('providers.test', { id: 'was-sealed' })).toMatchObject({ ok: true, value: { ok: false, message: expect.stringMatching(/cannot be read/) } });
    expect(await call('providers.update', { id: 'was-sealed', api_key: 'sk-entered-again' })).toMatchObject({ ok: true, value: { provider: { key_source: 'stored', key_problem: null } } });
    expect(JSON.parse(readFileSync(join(process.env.MGW_DATA_DIR!, 'secrets.json'), 'utf8'))).toMatchObject({ 'provider:was-sealed': 'sk-entered-again' });
    await call('providers.remove', { id: 'was-sealed' });
  });

  it("the shell's own settings are not the data dir's config.json (one folder on macOS)", async () => {
    storeNames.length = 0;
    await launch();
    expect(storeNames).toEqual(['desktop-settings']);
  });
});
