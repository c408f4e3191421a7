// mgw providers, as real child processes against loopback OpenAI-compatible and fal emulators: the
// exit status scripts rely on, and the inputs `providers add` refuses with one line and status 2
// (an existing id included: add never replaces).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFalEmulator, startOpenAIEmulator, type FalEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { mgwAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';

let dataDir: string;
let openai: OpenAIEmulator;
let fal: FalEmulator;

beforeAll(async () => {
  dataDir = tempDir('mgw-cli-providers-');
  openai = await startOpenAIEmulator();
  fal = await startFalEmulator();
});
afterAll(async () => {
  await openai?.close();
  await fal?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// Async: the emulator lives in this process and must answer while mgw runs.
const run = (...args: string[]) => mgwAsync([...args, '--data-dir', dataDir]);

describe('mgw providers test', () => {
  it('exits 0 when the upstream accepts the key, which it checked with GET /videos?limit=1', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'good', '--base-url', openai.baseUrl, '--api-key', openai.apiKey)).status).toBe(0);
    const result = await run('providers', 'test', 'good');
    expect(result.stdout).toMatch(/^ok: Connected: \d+ models listed; the key was accepted\./);
    expect(result.status).toBe(0);
    const listing = openai.requests.filter((r) => r.path === '/v1/videos?limit=1').at(-1);
    expect(listing?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
  });

  it('exits 1 when the upstream refuses the key', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'wrongkey', '--base-url', openai.baseUrl, '--api-key', 'sk-WRONG-0000')).status).toBe(0);
    const result = await run('providers', 'test', 'wrongkey');
    expect(result.stdout).toMatch(/^failed: .*credentials/);
    expect(result.status).toBe(1);
  });

  it('exits 1 when the upstream cannot be reached', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'down', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'x-key')).status).toBe(0);
    const result = await run('providers', 'test', 'down');
    expect(result.stdout).toMatch(/^failed: /);
    expect(result.status).toBe(1);
  });
});

describe('mgw providers test on a fal queue (which lists no models)', () => {
  it('exits 0 when the queue takes the key, asked for the status of a request that does not exist', async () => {
    expect((await run('providers', 'add', '--kind', 'fal', '--id', 'fal-good', '--base-url', fal.baseUrl, '--api-key', fal.apiKey)).status).toBe(0);
    const result = await run('providers', 'test', 'fal-good');
    expect(result.stdout).toMatch(/^ok: Connected: the queue answers; the key was accepted\./);
    expect(result.status).toBe(0);
    const probe = fal.requests.at(-1)!;
    expect(probe.path).toMatch(/^\/[^/]+\/[^/]+\/requests\/[^/]+\/status$/);
    expect(probe.headers.authorization).toBe(`Key ${fal.apiKey}`);
    expect(fal.jobs.size).toBe(0); // nothing was submitted: the test costs nothing
  });

  it('exits 1 when the queue refuses the key', async () => {
    expect((await run('providers', 'add', '--kind', 'fal', '--id', 'fal-wrong', '--base-url', fal.baseUrl, '--api-key', 'wrong-id:wrong-secret')).status).toBe(0);
    const result = await run('providers', 'test', 'fal-wrong');
    expect(result.stdout).toMatch(/^failed: .*credentials/);
    expect(result.status).toBe(1);
  });

  it('exits 1 when the queue cannot be reached', async () => {
    expect((await run('providers', 'add', '--kind', 'fal', '--id', 'fal-down', '--base-url', 'http://127.0.0.1:9', '--api-key', 'x-key')).status).toBe(0);
    const result = await run('providers', 'test', 'fal-down');
    expect(result.stdout).toMatch(/^failed: /);
    expect(result.status).toBe(1);
  });
});

describe('a key read from an environment variable that cannot be used', () => {
  const VALUE = 'sk-CLI-VALUE-5150';
  const inEnv = (env: Record<string, string>, ...args: string[]) => mgwAsync([...args, '--data-dir', dataDir], env);

  it('holding a line break: list and test name the variable and what is wrong, never the value (exit 1)', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'envbad', '--base-url', openai.baseUrl, '--api-key-env', 'MGW_CLI_BAD_KEY')).status).toBe(0);
    const env = { MGW_CLI_BAD_KEY: `${VALUE}\n` };
    const table = await inEnv(env, 'providers', 'list');
    expect(table.stdout).toMatch(/^envbad +openai +\S+ +env:MGW_CLI_BAD_KEY \(unusable\) +default +unknown +-$/m);
    expect(table.stdout).toMatch(/^envbad: The key in MGW_CLI_BAD_KEY is not usable: a key must be printable ASCII without spaces or line breaks/m);
    const listed = JSON.parse((await inEnv(env, 'providers', 'list', '--json')).stdout) as { id: string; key_source: string; key_problem: string | null }[];
    expect(listed.find((p) => p.id === 'envbad')).toMatchObject({ key_source: 'env:MGW_CLI_BAD_KEY', key_problem: expect.stringMatching(/^The key in MGW_CLI_BAD_KEY is not usable/) });
    expect(listed.find((p) => p.id === 'good')).toMatchObject({ key_source: 'stored', key_problem: null });
    const test = await inEnv(env, 'providers', 'test', 'envbad');
    expect(test.stdout).toMatch(/^failed: The key in MGW_CLI_BAD_KEY is not usable/);
    expect(test.status).toBe(1);
    for (const out of [table, test]) expect(out.stdout + out.stderr).not.toContain(VALUE);
  });

  it('unset: the test says so (exit 1), and with the variable set the test passes', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'envunset', '--base-url', openai.baseUrl, '--api-key-env', 'MGW_CLI_UNSET_KEY')).status).toBe(0);
    const unset = await run('providers', 'test', 'envunset');
    expect(unset.stdout).toBe("failed: The key of provider envunset is read from MGW_CLI_UNSET_KEY, which is not set in this process's environment.\n");
    expect(unset.status).toBe(1);
    const set = await inEnv({ MGW_CLI_UNSET_KEY: openai.apiKey }, 'providers', 'test', 'envunset');
    expect(set.stdout).toMatch(/^ok: /);
    expect(set.status).toBe(0);
  });
});

describe('mgw providers add refuses, with one line and status 2', () => {
  const refused = async (args: string[], param: RegExp) => {
    const result = await run('providers', 'add', '--kind', 'openai', ...args);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(param);
    return result;
  };
  const listedIds = async () => (JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string }[]).map((p) => p.id);

  it.each([
    ['a query', 'http://127.0.0.1:9/v1?api-version=1'],
    ['an empty query', 'http://127.0.0.1:9/v1?'],
    ['a fragment', 'http://127.0.0.1:9/v1#x'],
  ])('a base URL with %s', async (_label, url) => {
    await refused(['--id', 'withquery', '--base-url', url, '--api-key', 'k-1234'], /base_url must not have a query or a fragment/);
    expect(await listedIds()).not.toContain('withquery');
  });

  it.each([
    ['a line break at its end', 'http://127.0.0.1:9/v1\n'],
    ['a line break inside', 'http://127.0.0.1:9/v\n1'],
    ['a tab', 'http://127.0.0.1:9/\tv1'],
    ['a leading space', ' http://127.0.0.1:9/v1'],
  ])('a base URL with %s (the URL parser would drop it: the URL called is not the one listed)', async (_label, url) => {
    await refused(['--id', 'withspace', '--base-url', url, '--api-key', 'k-1234'], /base_url must not contain spaces, line breaks or control characters/);
    expect(await listedIds()).not.toContain('withspace');
  });

  it.each([
    ['user:password@', 'http://user:PASSW0RD@127.0.0.1:9/v1'],
    ['user@', 'http://user@127.0.0.1:9/v1'],
    ['an empty user', 'http://@127.0.0.1:9/v1'],
  ])('a base URL with %s, without echoing it', async (_label, url) => {
    const result = await refused(['--id', 'withcreds', '--base-url', url, '--api-key', 'k-1234'], /base_url must not contain a user name or password/);
    expect(result.stderr).not.toContain('PASSW0RD');
    expect(await listedIds()).not.toContain('withcreds');
  });
});

describe('mgw providers add --api-key', () => {
  it.each(['fal', 'replicate', 'gemini', 'runway'])('a %s provider without a key is refused (exit 2, one line), and nothing is added', async (kind) => {
    const result = await run('providers', 'add', '--kind', kind, '--id', `nokey-${kind}`);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^mgw: A .+ provider needs its API key: give the key, or the name of the environment variable that holds it\.\n$/);
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string }[];
    expect(listed.map((p) => p.id)).not.toContain(`nokey-${kind}`);
  });

  it("refuses an empty key (exit 2, one line), as the studio does, and adds nothing", async () => {
    const result = await run('providers', 'add', '--kind', 'openai', '--id', 'emptykey', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', '');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^mgw: api_key must not be empty[^\n]*\n$/);
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string }[];
    expect(listed.map((p) => p.id)).not.toContain('emptykey');
  });

  // Such a key cannot go in a header: every call would fail as "could not connect".
  it.each([
    ['a pasted line break', 'sk-PASTED-1234\n'],
    ['a tab', 'sk-TAB\t1234'],
    ['a space inside', 'sk-TWO WORDS'],
    ['a leading space', ' sk-LEADING-1234'],
    ['non-ASCII', 'sk-ÜNICODE-1234'],
  ])('refuses a key with %s (exit 2, one line, the key not echoed) and adds nothing', async (_label, key) => {
    const result = await run('providers', 'add', '--kind', 'openai', '--id', 'oddkey', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', key);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^mgw: api_key must be printable ASCII[^\n]*\n$/);
    expect(result.stderr).not.toContain(key.trim().slice(3, 9));
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string }[];
    expect(listed.map((p) => p.id)).not.toContain('oddkey');
  });
});

describe('mgw providers add with an id that exists', () => {
  it('is refused (exit 2, one line) and leaves the provider, its kind and its stored key as they were', async () => {
    expect((await run('providers', 'add', '--kind', 'fal', '--id', 'taken', '--base-url', 'http://127.0.0.1:9', '--api-key', 'fal-KEEP-ME-1')).status).toBe(0);
    const secretsBefore = readFileSync(join(dataDir, 'secrets.json'), 'utf8');
    const again = await run('providers', 'add', '--kind', 'openai', '--id', 'taken', '--base-url', 'http://127.0.0.1:9/v1');
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^mgw: Provider taken exists already;[^\n]*\n$/);
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string; kind: string; base_url: string; key_source: string }[];
    expect(listed.find((p) => p.id === 'taken')).toMatchObject({ kind: 'fal', base_url: 'http://127.0.0.1:9', key_source: 'stored' });
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toBe(secretsBefore);
  });
});

describe('mgw providers update', () => {
  it('rotates a stored key (and moves the base URL) while models keep their provider; the test then passes', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'rotate', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'sk-OLD-0000')).status).toBe(0);
    const record = JSON.stringify({ ...JSON.parse((await run('models', 'list', '--json')).stdout).find((m: { record: { id: string } }) => m.record.id === 'local-image').record, id: undefined });
    expect((await run('models', 'put', 'rotate-image', '--provider', 'rotate', '--upstream-model', 'gpt-image-1', '--json', record)).status).toBe(0);
    expect((await run('providers', 'test', 'rotate')).status).toBe(1);
    const updated = await run('providers', 'update', '--id', 'rotate', '--base-url', openai.baseUrl, '--api-key', openai.apiKey);
    expect(updated.status).toBe(0);
    expect(updated.stdout).not.toContain(openai.apiKey);
    expect((await run('providers', 'test', 'rotate')).status).toBe(0);
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string; kind: string; key_source: string }[];
    expect(listed.find((p) => p.id === 'rotate')).toMatchObject({ kind: 'openai', key_source: 'stored' });
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(secrets)).not.toContain('sk-OLD-0000');
    // Moving the key to an environment variable drops the stored one.
    expect((await run('providers', 'update', '--id', 'rotate', '--api-key-env', 'ROTATE_KEY')).status).toBe(0);
    expect((JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string; key_source: string }[]).find((p) => p.id === 'rotate')!.key_source).toBe('env:ROTATE_KEY');
  });

  it('refuses an unknown id, nothing to change, and a bad base URL, with one line', async () => {
    expect((await run('providers', 'add', '--kind', 'openai', '--id', 'upd-bad', '--base-url', openai.baseUrl)).status).toBe(0);
    for (const [args, status, message] of [
      [['--id', 'nope', '--api-key', 'k'], 2, /No provider nope/],
      [['--id', 'upd-bad'], 2, /Nothing to change/],
      [['--id', 'upd-bad', '--base-url', 'http://u:p@127.0.0.1/v1'], 2, /user name or password/],
    ] as const) {
      const result = await run('providers', 'update', ...args);
      expect(result.status, args.join(' ')).toBe(status);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });
});
