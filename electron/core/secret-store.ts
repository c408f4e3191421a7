// Where provider API keys live. Electron encrypts them with the OS keychain (safeStorage); the
// headless gateway keeps them in a file only the owner can read. Never logged, never returned
// by any API.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError } from './errors.js';
import { withLock } from './os-lock.js';

export interface SecretStore {
  /** The secret, or null when there is none; throws UnreadableSecretError for one it cannot read. */
  get(name: string): string | null;
  set(name: string, value: string): void;
  delete(name: string): void;
}

/** A secret that is stored but cannot be read back (the OS keychain refuses to decrypt it). */
export class UnreadableSecretError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableSecretError';
  }
}

/**
 * Headless: <data dir>/secrets.json, mode 0600, written atomically. The CLI, a running server and
 * its studio may change it at once, so each change is a read-modify-write under a lock the
 * operating system holds (secrets-lock.db, see os-lock.ts: a writer that dies mid-change leaves
 * nothing to break), and each write goes through a temp file of its own (readers never need the
 * lock: a rename is atomic).
 */
export class FileSecretStore implements SecretStore {
  private readonly path: string;
  private readonly lockPath: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'secrets.json');
    this.lockPath = join(dataDir, 'secrets-lock.db');
  }

  get(name: string): string | null {
    return this.read()[name] ?? null;
  }

  set(name: string, value: string): void {
    this.update((all) => ({ ...all, [name]: value }));
  }

  delete(name: string): void {
    this.update((all) => {
      if (!(name in all)) return null;
      const { [name]: _removed, ...rest } = all;
      return rest;
    });
  }

  /** `change` answers the new contents, or null when there is nothing to write. */
  private update(change: (all: Record<string, string>) => Record<string, string> | null): void {
    withLock(this.lockPath, () => {
      const next = change(this.read());
      if (next) this.write(next);
    });
  }

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    // A damaged file is the data dir's problem, said as such: a bare SyntaxError reached the CLI
    // as "Expected property name..." and HTTP callers as "The request body is not valid JSON".
    let all: unknown;
    try {
      all = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
    if (typeof all !== 'object' || all === null || Array.isArray(all) || Object.values(all).some((v) => typeof v !== 'string')) {
      throw new GatewayError(
        'storage_unavailable',
        "The gateway's storage is unavailable: the provider keys file (secrets.json in the data directory) is damaged; fix it, or remove it and set the providers' keys again.",
      );
    }
    return all as Record<string, string>;
  }

  private write(all: Record<string, string>): void {
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    } catch (error) {
      try {
        unlinkSync(tmp);
      } catch {
        // never created, or already renamed
      }
      throw error;
    }
  }
}

/**
 * The desktop app's keys: its own sealed store, over the data dir's file that `mgw` writes (the
 * two share a data dir, and the CLI cannot reach the OS keychain). A key in the file is the newer
 * one, because every write through this store seals the key and drops it from the file: so a
 * provider added or re-keyed with `mgw` works in the desktop app, and one the desktop app keyed
 * is kept sealed.
 */
export class SharedDirSecretStore implements SecretStore {
  constructor(
    private readonly sealed: SecretStore,
    private readonly file: SecretStore,
  ) {}

  get(name: string): string | null {
    return this.file.get(name) ?? this.sealed.get(name);
  }

  set(name: string, value: string): void {
    this.sealed.set(name, value);
    this.file.delete(name);
  }

  delete(name: string): void {
    this.sealed.delete(name);
    this.file.delete(name);
  }
}
