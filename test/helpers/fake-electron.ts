// A stand-in for the `electron` module (the binary cannot be installed on these machines) that
// behaves as Electron's docs and source say, so a shell test fails for the reasons the real app
// would: privileged schemes only once and before ready, protocol.handle / BrowserWindow only
// after ready and one handler per scheme or channel, safeStorage refusing when no keychain is
// there and failing to decrypt what another keychain sealed (a reset, a moved profile), app.quit() running before-quit -> (windows close) -> will-quit -> exit, each
// cancellable with preventDefault, and net.fetch of a file: URL answering like Chromium's file
// loader: 200 with Content-Type, and for a Range request only the slice, still as a 200.
// `reset()` starts a new "process".
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

type Handler = (...args: never[]) => unknown;
type ProtocolHandler = (request: Request) => Response | Promise<Response>;

const FILE_TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.mp4': 'video/mp4' };

class FakeEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

class FakeWebContents extends EventEmitter {
  sent: unknown[][] = [];
  openHandler: Handler | null = null;
  destroyed = false;
  setWindowOpenHandler(handler: Handler): void {
    this.openHandler = handler;
  }
  send(...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push(args);
    this.emit('test:sent', args);
  }
  /** (Test hook, not Electron's) The first message from `sent[from]` on that `match` accepts, sent already or once it is. */
  whenSent(match: (args: unknown[]) => boolean, from = 0): Promise<unknown[]> {
    const already = this.sent.slice(from).find(match);
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => {
      const listener = (args: unknown[]) => {
        if (!match(args)) return;
        this.off('test:sent', listener);
        resolve(args);
      };
      this.on('test:sent', listener);
    });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

function newState() {
  return {
    ready: false,
    lock: true,
    /** safeStorage: false on a Linux desktop without a secret service (the basic_text backend). */
    encryptionAvailable: true,
    /** Which keychain seals: bumping it is a keychain reset, after which older sealed text cannot be decrypted. */
    keychain: 1,
    privilegedCalls: 0,
    privileged: [] as { scheme: string; privileges?: Record<string, boolean> }[],
    protocols: new Map<string, ProtocolHandler>(),
    ipc: new Map<string, Handler>(),
    windows: [] as FakeBrowserWindow[],
    permissionRequest: null as Handler | null,
    permissionCheck: null as Handler | null,
    errorBoxes: [] as { title: string; content: string }[],
    /** When set, loadURL rejects with it, as a page that fails to load (did-fail-load) does. */
    loadError: null as string | null,
    /** Runs at the moment the process would end, to see what was done by then (nothing after is). */
    onExit: null as (() => void) | null,
    /** Set when the process would end: by app.exit(code), or 0 when a quit ran to its end. */
    exitCode: null as number | null,
    userData: '/nonexistent',
  };
}

class FakeApp extends EventEmitter {
  private exited!: Promise<number>;
  private onExit!: (code: number) => void;

  /** One app object for the whole test file (main.ts imports it once): a new process clears it. */
  newProcess(): void {
    this.removeAllListeners();
    this.exited = new Promise((resolve) => (this.onExit = resolve));
  }
  requestSingleInstanceLock(): boolean {
    return fake.state.lock;
  }
  isReady(): boolean {
    return fake.state.ready;
  }
  async whenReady(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (!fake.state.ready) {
      fake.state.ready = true;
      this.emit('ready');
    }
  }
  getPath(): string {
    return fake.state.userData;
  }
  quit(): void {
    if (fake.state.exitCode !== null) return;
    const before = new FakeEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    for (const window of [...fake.state.windows]) window.destroy();
    const will = new FakeEvent();
    this.emit('will-quit', will);
    if (will.defaultPrevented) return;
    this.exit(0);
  }
  exit(code = 0): void {
    if (fake.state.exitCode !== null) return;
    for (const window of [...fake.state.windows]) window.destroy();
    fake.state.exitCode = code;
    fake.state.onExit?.();
    this.onExit(code);
  }
  /** Resolves with the exit code once the process would have ended. */
  whenExited(): Promise<number> {
    return this.exited;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  url: string | null = null;
  shown = false;
  focused = 0;
  minimized = false;

  constructor(readonly options: Record<string, unknown>) {
    super();
    if (!fake.state.ready) throw new Error('Cannot create BrowserWindow before app is ready');
    fake.state.windows.push(this);
    fake.app.emit('web-contents-created', new FakeEvent(), this.webContents);
  }
  /** Fetches the page through the registered protocol; rejects as did-fail-load would. */
  async loadURL(url: string): Promise<void> {
    this.url = url;
    if (fake.state.loadError) throw new Error(`${fake.state.loadError} loading '${url}'`);
    const handler = fake.state.protocols.get(new URL(url).protocol.slice(0, -1));
    if (!handler) throw new Error(`ERR_UNKNOWN_URL_SCHEME (-302) loading '${url}'`);
    const response = await handler(new Request(url));
    if (!response.ok) throw new Error(`ERR_HTTP_RESPONSE_CODE_FAILURE (-379) loading '${url}'`);
    this.emit('ready-to-show');
  }
  show(): void {
    this.shown = true;
  }
  focus(): void {
    this.focused++;
  }
  restore(): void {
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isDestroyed(): boolean {
    return this.webContents.destroyed;
  }
  destroy(): void {
    if (this.webContents.destroyed) return;
    this.webContents.destroyed = true;
    fake.state.windows.splice(fake.state.windows.indexOf(this), 1);
    this.emit('closed');
    if (fake.state.windows.length === 0) fake.app.emit('window-all-closed');
  }
}

export const fake = { state: newState(), app: new FakeApp() };

/** A new process: nothing registered, not ready, no windows. */
export function reset(): void {
  fake.state = newState();
  fake.app.newProcess();
}
reset();

async function fetchFile(url: string, init?: RequestInit): Promise<Response> {
  const bytes = await readFile(fileURLToPath(url)).catch(() => {
    throw new TypeError(`net::ERR_FILE_NOT_FOUND loading '${url}'`);
  });
  const range = /^bytes=(\d+)-(\d*)$/.exec(new Headers(init?.headers).get('range') ?? '');
  const body = range ? bytes.subarray(Number(range[1]), range[2] ? Number(range[2]) + 1 : undefined) : bytes;
  return new Response(new Uint8Array(body), { status: 200, headers: { 'content-type': FILE_TYPES[extname(url)] ?? 'application/octet-stream' } });
}

const encryptionUnavailable = (what: string) =>
  new Error(`Error while ${what} the text provided to safeStorage.${what === 'encrypting' ? 'encryptString' : 'decryptString'}. Encryption is not available.`);

export const electron = {
  app: fake.app,
  BrowserWindow: FakeBrowserWindow,
  ipcMain: {
    handle(channel: string, handler: Handler): void {
      if (fake.state.ipc.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      fake.state.ipc.set(channel, handler);
    },
  },
  protocol: {
    registerSchemesAsPrivileged(schemes: { scheme: string }[]): void {
      if (fake.state.ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
      if (fake.state.privilegedCalls++ > 0) throw new Error('protocol.registerSchemesAsPrivileged can be called only once');
      fake.state.privileged.push(...schemes);
    },
    handle(scheme: string, handler: ProtocolHandler): void {
      if (!fake.state.ready) throw new Error('protocol.handle cannot be used before the app is ready');
      if (fake.state.protocols.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
      fake.state.protocols.set(scheme, handler);
    },
  },
  net: {
    fetch(input: string, init?: RequestInit): Promise<Response> {
      if (!input.startsWith('file:')) throw new Error(`the fake net.fetch serves file: URLs only, not ${input}`);
      return fetchFile(input, init);
    },
  },
  safeStorage: {
    isEncryptionAvailable: () => fake.state.ready && fake.state.encryptionAvailable,
    encryptString(value: string): Buffer {
      if (!electron.safeStorage.isEncryptionAvailable()) throw encryptionUnavailable('encrypting');
      return Buffer.from(`sealed:${fake.state.keychain}:${value}`);
    },
    decryptString(buffer: Buffer): string {
      if (!electron.safeStorage.isEncryptionAvailable()) throw encryptionUnavailable('decrypting');
      const sealed = /^sealed:(\d+):/.exec(buffer.toString());
      if (Number(sealed?.[1]) !== fake.state.keychain) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return buffer.toString().slice(sealed![0].length);
    },
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (handler: Handler) => void (fake.state.permissionRequest = handler),
      setPermissionCheckHandler: (handler: Handler) => void (fake.state.permissionCheck = handler),
    },
  },
  dialog: {
    showErrorBox: (title: string, content: string) => void fake.state.errorBoxes.push({ title, content }),
  },
};
