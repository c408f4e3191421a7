// Where provider API keys live. Electron encrypts them with the OS keychain (safeStorage); the
// headless gateway keeps them in a file only the owner can read. Never logged, never returned
// by any API.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretStore {
  get(name: string): string | null;
  set(name: string, value: string): void;
  delete(name: string): void;
}

/** Headless: <data dir>/secrets.json, mode 0600, written atomically. */
export class FileSecretStore implements SecretStore {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'secrets.json');
  }

  get(name: string): string | null {
    return this.read()[name] ?? null;
  }

  set(name: string, value: string): void {
    this.write({ ...this.read(), [name]: value });
  }

  delete(name: string): void {
    const all = this.read();
    delete all[name];
    this.write(all);
  }

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    return JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, string>;
  }

  private write(all: Record<string, string>): void {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}
