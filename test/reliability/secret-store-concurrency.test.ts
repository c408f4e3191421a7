// Several processes writing the headless secret file at once on one data dir: each one's key
// must be in it afterwards (no lost update), no process may fail, and no temp or lock file is
// left. First `mgw providers add` as the owner runs it, then writers started in lockstep that
// each write many times, which makes the overlap certain rather than likely.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { mgw, mgwAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';

const SECRET_STORE = fileURLToPath(new URL('../../dist/electron/core/secret-store.js', import.meta.url));

const PROCESSES = 12;
let dataDir = '';

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the headless secret store under concurrent writers', () => {
  it.each([1, 2])(`keeps every key when ${PROCESSES} providers add run at once (round %i)`, async () => {
    dataDir = tempDir('mgw-secrets-race-');
    // The database exists before the race, as it does for any data dir in use.
    expect(mgw(['providers', 'list', '--data-dir', dataDir]).status).toBe(0);

    const ids = Array.from({ length: PROCESSES }, (_, i) => `p${i}`);
    const results = await Promise.all(
      ids.map((id) => mgwAsync(['providers', 'add', '--kind', 'openai', '--id', id, '--base-url', 'http://127.0.0.1:9/v1', '--api-key', `sk-KEY-${id}`, '--data-dir', dataDir])),
    );
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/key: stored\./);
    }

    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(secrets).toEqual(Object.fromEntries(ids.map((id) => [`provider:${id}`, `sk-KEY-${id}`])));
    const listed = JSON.parse(mgw(['providers', 'list', '--json', '--data-dir', dataDir]).stdout) as { id: string; key_source: string }[];
    expect(listed.map((p) => p.key_source)).toEqual(ids.map(() => 'stored'));
    expect(readdirSync(dataDir).filter((name) => /^secrets\.json\./.test(name))).toEqual([]);
  }, 120_000);

  it('keeps every key when 4 processes each set and delete 60 keys at once', async () => {
    dataDir = tempDir('mgw-secrets-race-');
    const writers = 4;
    const each = 60;
    const startAt = Date.now() + 1_500;
    // Each writer sets its keys, and deletes a scratch key per round, as remove does.
    const script = `
      const { FileSecretStore } = await import(${JSON.stringify(SECRET_STORE)});
      const store = new FileSecretStore(process.argv[1]);
      const w = process.argv[2];
      while (Date.now() < ${startAt}) {}
      for (let i = 0; i < ${each}; i++) {
        store.set('k-' + w + '-' + i, 'v-' + w + '-' + i);
        store.set('scratch-' + w, 'x');
        store.delete('scratch-' + w);
      }`;
    const codes = await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir, String(w)]);
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.once('close', (code) => resolve({ code, stderr }));
        }),
      ),
    );
    expect(codes).toEqual(Array.from({ length: writers }, () => ({ code: 0, stderr: '' })));
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    const expected: Record<string, string> = {};
    for (let w = 0; w < writers; w++) for (let i = 0; i < each; i++) expected[`k-${w}-${i}`] = `v-${w}-${i}`;
    expect(secrets).toEqual(expected);
    expect(readdirSync(dataDir).filter((name) => /^secrets\.json\./.test(name))).toEqual([]);
  }, 60_000);
});
