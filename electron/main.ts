// Electron shell: it only wires. Single-instance lock, the gateway core (the same one `mgw
// serve` runs), the loopback HTTP door for local apps, the IPC bridge and protocols for the
// studio window, settings in electron-store and provider secrets through safeStorage.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, net, protocol, safeStorage, session } from 'electron';
import Store from 'electron-store';
import pino from 'pino';
import { createGateway, startBackgroundWork } from './core/gateway.js';
import { loadSettings, resolveDataDir } from './core/config.js';
import { FileSecretStore, SharedDirSecretStore, type SecretStore } from './core/secret-store.js';
import { createStudio } from './core/studio/studio.js';
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
      return sealed ? safeStorage.decryptString(Buffer.from(sealed, 'base64')) : null;
    },
    set: (name, value) => settings.set('secrets', { ...settings.get('secrets'), [name]: safeStorage.encryptString(value).toString('base64') }),
    delete: (name) => {
      const { [name]: _removed, ...rest } = settings.get('secrets');
      settings.set('secrets', rest);
    },
  };
}

export async function startShell(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  await app.whenReady();

  // Not electron-store's default config.json: on macOS its folder (userData) is also the data
  // dir, whose config.json belongs to the gateway.
  const settings = new Store<ShellSettings>({ name: 'desktop-settings', defaults: { host: '127.0.0.1', port: 8787, allowedHosts: [], secrets: {} } });
  const logger = pino({ level: process.env.MGW_LOG_LEVEL ?? 'info' });
  // The same data dir as `mgw` (MGW_DATA_DIR, else the platform's app-data folder), not Electron's
  // userData: keys, balances and models made with the CLI are the desktop app's own.
  const dataDir = resolveDataDir();
  // Limits live in the data dir's config.json, shared with mgw serve and the CLI.
  const secrets = new SharedDirSecretStore(safeStorageSecrets(settings), new FileSecretStore(dataDir));
  const gateway = await createGateway({ dataDir, logger, secrets, limits: loadSettings(dataDir).limits });
  await startBackgroundWork(gateway);
  let server: RunningServer | null = null;
  const studio = await createStudio(gateway, { version: appVersion(), apiBaseUrl: () => server?.baseUrl ?? null });
  server = await startHttpServer(gateway, { host: settings.get('host'), port: settings.get('port'), allowedHosts: settings.get('allowedHosts') }).catch(
    (error: Error) => {
      // The studio still works over IPC when the port is taken; local apps just cannot connect.
      logger.error({ err: error }, 'the HTTP door could not start');
      return null;
    },
  );

  hardenSession(session.defaultSession);
  registerAppProtocols(protocol, net, studio);
  installIpcBridge(ipcMain, studio, logger);

  const window = new BrowserWindow(mainWindowOptions(PRELOAD));
  const stopForwarding = forwardEvents(studio, window.webContents);
  window.once('ready-to-show', () => window.show());
  await window.loadURL(STUDIO_INDEX_URL);

  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    stopForwarding();
    studio.dispose();
    void server?.close().then(() => gateway.close());
  });
}

// Electron runs this file as its main script; tests import the pieces above with electron mocked.
if (process.versions.electron) void startShell();
