// Electron shell: it only wires. Single-instance lock, the gateway core (the same one `mgw
// serve` runs), the loopback HTTP door for local apps, the IPC bridge and protocols for the
// studio window, settings in electron-store and provider secrets through safeStorage.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, net, protocol, safeStorage, session } from 'electron';
import Store from 'electron-store';
import pino from 'pino';
import { createGateway, startBackgroundWork, type Gateway } from './core/gateway.js';
import { loadSettings, resolveDataDir } from './core/config.js';
import { FileSecretStore, SharedDirSecretStore, UnreadableSecretError, type SecretStore } from './core/secret-store.js';
import { createStudio, type Studio } from './core/studio/studio.js';
import { startHttpServer, type RunningServer } from './http/server.js';
import { appVersion } from './project-paths.js';
import { PRIVILEGED_SCHEMES, registerAppProtocols } from './shell/app-protocols.js';
import { hardenSession, hardenWebContents } from './shell/hardening.js';
import { forwardEvents, installIpcBridge } from './shell/ipc-bridge.js';
import { mainWindowOptions, STUDIO_INDEX_URL } from './shell/window-options.js';

export interface ShellSettings {
  host: string;
  port: number;
  allowedHosts: string[];
  /** Provider secrets, encrypted with safeStorage (base64 of the ciphertext). */
  secrets: Record<string, string>;
}

const PRELOAD = join(fileURLToPath(new URL('.', import.meta.url)), 'preload.cjs');

/** Provider secrets encrypted by the OS keychain, stored in electron-store. */
export function safeStorageSecrets(settings: Store<ShellSettings>): SecretStore {
  return {
    get: (name) => {
      const sealed = settings.get('secrets')[name];
      if (!sealed) return null;
      try {
        return safeStorage.decryptString(Buffer.from(sealed, 'base64'));
      } catch {
        // The key is there but lost to this keychain: the provider has no usable key until it is
        // entered again (which seals it anew), and nothing that lists or uses it may fail.
        throw new UnreadableSecretError('the OS keychain could not decrypt it (was the keychain reset, or the profile moved?)');
      }
    },
    set: (name, value) => settings.set('secrets', { ...settings.get('secrets'), [name]: safeStorage.encryptString(value).toString('base64') }),
    delete: (name) => {
      const { [name]: _removed, ...rest } = settings.get('secrets');
      settings.set('secrets', rest);
    },
  };
}

/**
 * Without a keychain: the data dir's file, as mgw keeps keys. A key sealed while there was one is
 * still there but cannot be read: it is reported so (not as no key, sent as none) until it is
 * entered again, which keeps it in the file and forgets the sealed one.
 */
function keychainlessSecrets(settings: Store<ShellSettings>, file: SecretStore): SecretStore {
  const forget = (name: string) => {
    const { [name]: sealed, ...rest } = settings.get('secrets');
    if (sealed !== undefined) settings.set('secrets', rest);
  };
  return {
    get: (name) => {
      const key = file.get(name);
      if (key !== null || !settings.get('secrets')[name]) return key;
      throw new UnreadableSecretError('it was sealed by the OS keychain, which is not available now');
    },
    set: (name, value) => {
      file.set(name, value);
      forget(name);
    },
    delete: (name) => {
      file.delete(name);
      forget(name);
    },
  };
}

/**
 * Sealed by the OS keychain over the data dir's file. Without a keychain (a Linux desktop with no
 * secret service: safeStorage's basic_text backend) safeStorage refuses to encrypt, so keys are
 * kept as mgw keeps them, in <data dir>/secrets.json (mode 0600). Asked after ready: before it,
 * safeStorage answers "not available" on Linux and Windows.
 */
function providerSecrets(settings: Store<ShellSettings>, dataDir: string, logger: pino.Logger): SecretStore {
  const file = new FileSecretStore(dataDir);
  if (safeStorage.isEncryptionAvailable()) return new SharedDirSecretStore(safeStorageSecrets(settings), file);
  logger.warn({ dataDir }, 'no OS keychain for safeStorage: provider keys are kept in the data dir, as mgw keeps them');
  return keychainlessSecrets(settings, file);
}

/** What the shell has opened so far (a start can fail half-way). */
interface ShellParts {
  gateway?: Gateway;
  studio?: Studio;
  server?: RunningServer | null;
  window?: BrowserWindow;
  stopForwarding?: () => void;
}

export async function startShell(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Both before the first await: Electron refuses privileged schemes once it is ready, and a
  // listener added after an await would miss what happens while the gateway opens.
  protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  const logger = pino({ level: process.env.MGW_LOG_LEVEL ?? 'info' });
  const parts: ShellParts = {};

  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= closeParts(parts, logger));
  app.on('second-instance', () => {
    const { window } = parts;
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  // Electron ends the process right after will-quit unless it is cancelled: the gateway's close
  // is async (the HTTP door drains, usage and activity batches are written, the database closed),
  // so the quit waits for it, then exits.
  app.on('will-quit', (event) => {
    event.preventDefault();
    void stop().finally(() => app.exit(0));
  });

  try {
    await app.whenReady();
    // Not electron-store's default config.json: on macOS its folder (userData) is also the data
    // dir, whose config.json belongs to the gateway.
    const settings = new Store<ShellSettings>({ name: 'desktop-settings', defaults: { host: '127.0.0.1', port: 8787, allowedHosts: [], secrets: {} } });
    // The same data dir as `mgw` (MGW_DATA_DIR, else the platform's app-data folder), not Electron's
    // userData: keys, balances and models made with the CLI are the desktop app's own.
    const dataDir = resolveDataDir();
    const secrets = providerSecrets(settings, dataDir, logger);
    // Limits live in the data dir's config.json, shared with mgw serve and the CLI.
    const owner = loadSettings(dataDir);
    const gateway = (parts.gateway = await createGateway({ dataDir, logger, secrets, limits: owner.limits, circuitBreaker: owner.circuitBreaker }));
    await startBackgroundWork(gateway, 'the desktop app');
    const studio = (parts.studio = await createStudio(gateway, { version: appVersion(), apiBaseUrl: () => parts.server?.baseUrl ?? null }));
    parts.server = await startHttpServer(gateway, { host: settings.get('host'), port: settings.get('port'), allowedHosts: settings.get('allowedHosts') }).catch(
      (error: Error) => {
        // The studio still works over IPC when the port is taken; local apps just cannot connect.
        logger.error({ err: error }, 'the HTTP door could not start');
        return null;
      },
    );

    hardenSession(session.defaultSession);
    registerAppProtocols(protocol, net, studio);
    installIpcBridge(ipcMain, studio, logger);

    const window = (parts.window = new BrowserWindow(mainWindowOptions(PRELOAD)));
    parts.stopForwarding = forwardEvents(studio, window.webContents);
    window.once('ready-to-show', () => window.show());
    await window.loadURL(STUDIO_INDEX_URL);
  } catch (error) {
    // Left running, a failed start would be a process with no window that holds the
    // single-instance lock, so every later launch would quit at once: say why, and end.
    logger.error({ err: error }, 'the desktop app could not start');
    dialog.showErrorBox('Media Gateway Studio could not start', error instanceof Error ? error.message : String(error));
    await stop();
    app.exit(1);
  }
}

/** Everything the shell opened, in reverse order; a part that fails to close is logged, not thrown. */
async function closeParts(parts: ShellParts, logger: pino.Logger): Promise<void> {
  parts.stopForwarding?.();
  parts.studio?.dispose();
  await parts.server?.close().catch((error: unknown) => logger.error({ err: error }, 'closing the HTTP door failed'));
  await parts.gateway?.close().catch((error: unknown) => logger.error({ err: error }, 'closing the gateway failed'));
}

// Electron runs this file as its main script; tests import the pieces above with electron mocked.
if (process.versions.electron) void startShell();
