import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gateway.js';
import { mgw, mgwAsync, serve, type Served } from '../helpers/cli.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let dataDir: string;
let server: Served;

beforeAll(async () => {
  dataDir = tempDir('mgw-cli-');
  server = await serve(['--data-dir', dataDir]);
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (...args: string[]) => mgw([...args, '--data-dir', dataDir]);

describe('one server per data dir', () => {
  it('a second mgw serve on the same data dir is refused, naming who serves it; the other commands still work', async () => {
    const second = await mgwAsync(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.status).toBe(1);
    // One line, naming the holder, after waiting the 5 s a dying holder is given.
    expect(second.stderr.trimEnd().split('\n')).toEqual([
      `mgw: The data dir ${dataDir} is already served by mgw serve (pid ${server.child.pid}). Stop it first, or give this one another data dir (--data-dir or MGW_DATA_DIR).`,
    ]);
    expect(second.stdout).not.toContain('listening');
    expect(run('keys', 'list').status).toBe(0);
  }, 30_000);
});

describe('mgw keys and balance', () => {
  it('creates a key (token shown once), lists it without the token, and the running server accepts it at once', async () => {
    const created = run('keys', 'create', '--access', 'balance', '--balance-usd', '2.5', '--label', 'ci', '--json');
    expect(created.status).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; token: string; access: string; label: string };
    expect(key).toMatchObject({ access: 'balance', label: 'ci' });
    expect(key.token).toMatch(/^mgw_/);

    const list = run('keys', 'list', '--json');
    expect(list.status).toBe(0);
    expect(list.stdout).not.toContain(key.token);
    expect(JSON.parse(list.stdout).map((k: { id: string }) => k.id)).toContain(key.id);

    const ok = await postJson(`${server.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x', size: '256x256' }, key.token);
    expect(ok.status).toBe(200);

    const shown = JSON.parse(run('balance', 'show', key.id, '--json').stdout);
    expect(Object.keys(shown)).toEqual(
      expect.arrayContaining(['balance_usd', 'allowance_remaining_usd', 'holds_usd', 'available_usd']),
    );
    const cost = Number((ok.body as { usage: { cost_usd: string } }).usage.cost_usd);
    expect(Number(shown.balance_usd)).toBeCloseTo(2.5 - cost, 8);
    expect(shown.holds_usd).toBe('0.00000000');

    expect(run('balance', 'top-up', key.id, '1.25').status).toBe(0);
    const after = JSON.parse(run('balance', 'show', key.id, '--json').stdout);
    expect(Number(after.balance_usd)).toBeCloseTo(3.75 - cost, 8);

    expect(run('keys', 'revoke', key.id).status).toBe(0);
    const revoked = await postJson(`${server.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x' }, key.token);
    expect(revoked.status).toBe(401);
    expect(errorOf(revoked).code).toBe('invalid_api_key');

    // A revoked key is final: money or access given to it could never be used.
    for (const refused of [run('balance', 'top-up', key.id, '1'), run('keys', 'update', key.id, '--access', 'pro')]) {
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toMatch(new RegExp(`Key ${key.id} was revoked .* create a new key`));
    }
    expect(JSON.parse(run('balance', 'show', key.id, '--json').stdout).balance_usd).toBe(after.balance_usd);
  });

  it('a balance key with no funds is refused by the server and the CLI shows nothing held', async () => {
    const key = JSON.parse(run('keys', 'create', '--access', 'balance', '--json').stdout);
    const refused = await postJson(`${server.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x' }, key.token);
    expect(refused.status).toBe(402);
    expect(run('balance', 'show', key.id).stdout).toMatch(/available_usd\s+0\.00000000/);
  });

  it("balance show reflects the hold of a video task the running server is rendering, and its release", async () => {
    const key = JSON.parse(run('keys', 'create', '--access', 'balance', '--balance-usd', '1', '--json').stdout) as { id: string; token: string };
    // 8 s of 720p takes the engine seconds: the CLI reads the balance while the hold is active.
    const created = await postJson(`${server.baseUrl}/videos`, { model: 'local-video', prompt: 'a harbour at dusk', seconds: 8, size: '720p' }, key.token);
    expect(created.status).toBe(200);
    const held = JSON.parse(run('balance', 'show', key.id, '--json').stdout);
    expect(held).toMatchObject({ balance_usd: '1.00000000', holds_usd: '0.40000000', available_usd: '0.60000000' });
    expect(run('balance', 'show', key.id).stdout).toMatch(/holds_usd\s+0\.40000000/);

    const id = (created.body as { id: string }).id;
    const cancelled = await request(`${server.baseUrl}/videos/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key.token}` } });
    expect(cancelled.status).toBe(200);
    const released = JSON.parse(run('balance', 'show', key.id, '--json').stdout);
    expect(released).toMatchObject({ balance_usd: '1.00000000', holds_usd: '0.00000000', available_usd: '1.00000000' });
  });

  it('catalog changes from the CLI show in the next GET /v1/models of the running server', async () => {
    const put = run('models', 'put', 'local-image', '--json', '{"pricing": {"output": 7.25}}');
    expect(put.status).toBe(0);
    const models = (await request(`${server.baseUrl}/models`)).body as { data: { id: string; pricing: { output: number } }[] };
    expect(models.data.find((m) => m.id === 'local-image')!.pricing.output).toBe(7.25);
    expect(run('models', 'remove', 'local-image-pro').status).toBe(0);
    const after = (await request(`${server.baseUrl}/models`)).body as { data: { id: string }[] };
    expect(after.data.map((m) => m.id)).not.toContain('local-image-pro');
  });

  it.each([
    [['keys', 'create']],
    [['keys', 'create', '--access', 'gold']],
    [['keys', 'create', '--access', 'free', '--balance-usd', 'ten']],
    [['keys', 'create', '--access', 'free', '--bogus']],
    [['balance', 'top-up', 'key_x']],
    [['balance', 'top-up', 'key_x', '-5']],
    [['balance', 'show']],
    [['serve', '--port', 'http']],
    [['frobnicate']],
    [['keys', 'frobnicate']],
    [['models', 'put', 'x', '--json', '{bad']],
  ])('bad arguments %j -> one line on stderr and exit status 2', (args) => {
    const result = run(...args);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^mgw: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['keys', 'create', '--access', 'balance', '--balance-usd', '-5'], '-5'],
    [['keys', 'update', 'key_x', '--allowance-usd', '-0.5'], '-0.5'],
    [['balance', 'top-up', 'key_x', '-5'], '-5'],
    [['serve', '--port', '-1'], '-1'],
  ])('a negative number (%j) is refused as such, not as an "ambiguous" argument or an unknown option', (args, value) => {
    const result = run(...args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^mgw: ${value}: amounts and numbers take no sign(; .*)? \\(usage: mgw ${args[0]} `));
  });

  it('a negative amount in a positional place is not told to use an option that does not exist', () => {
    const result = run('balance', 'top-up', 'key_x', '-5');
    expect(result.stderr).toMatch(/^mgw: -5: amounts and numbers take no sign \(usage: mgw balance top-up <key-id> <usd>\)\n$/);
  });

  it("a text value starting with '-' is told how to pass it, and passes with '='", () => {
    const told = run('keys', 'create', '--access', 'free', '--label', '-3dB');
    expect(told.status).toBe(2);
    expect(told.stderr).toContain("a text starting with '-' is given as --label=-3dB");
    const created = run('keys', 'create', '--access', 'free', '--label=-3dB', '--json');
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ label: '-3dB' });
  });

  it('an amount too large for one entry is refused for that reason, not as "not a decimal amount"', () => {
    const result = run('balance', 'top-up', 'key_x', '10000000');
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('mgw: <usd> must be at most 9007199.254740991 USD, the most a balance holds exactly to the nano-dollar, got "10000000"');
    const huge = run('keys', 'create', '--access', 'balance', '--balance-usd', '99999999999999999999');
    expect(huge.status).toBe(2);
    expect(huge.stderr.trim()).toBe('mgw: --balance-usd must be at most 9007199.254740991 USD, the most a balance holds exactly to the nano-dollar, got "99999999999999999999"');
  });

  it('providers: add (key stored, never printed), list, models put on it, remove refused while used', () => {
    const secret = 'sk-cli-secret-123456';
    const added = run('providers', 'add', '--kind', 'openai', '--id', 'up', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', secret);
    expect(added.status).toBe(0);
    expect(added.stdout).not.toContain(secret);
    expect(run('providers', 'add', '--kind', 'fal', '--id', 'fal', '--api-key-env', 'FAL_KEY').status).toBe(0);
    // Headless: the key lives in a file only the owner can read.
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const list = run('providers', 'list', '--json');
    expect(list.stdout).not.toContain(secret);
    const providers = JSON.parse(list.stdout) as { id: string; key_source: string; base_url: string }[];
    expect(providers).toEqual([
      expect.objectContaining({ id: 'fal', key_source: 'env:FAL_KEY', base_url: 'https://queue.fal.run' }),
      expect.objectContaining({ id: 'up', key_source: 'stored' }),
    ]);
    const record = JSON.stringify({
      object: 'model', created: 1, owned_by: 'up', tier: 'pro', model_type: 'image', pricing_mode: 'token',
      pricing: { input: 5, output: 40, currency: 'USD', unit: '1M tokens' },
      modalities: { input: ['text'], output: ['image'] }, context_window: { tokens: null, chars: 4000 },
      usage_based_only: true, stream: false, json_mode: false, reasoning: false, tools_calling: false,
      capabilities: { image_generation: true, supported_sizes: ['1024x1024'] },
    });
    expect(run('models', 'put', 'up-image', '--provider', 'up', '--upstream-model', 'gpt-image-1', '--json', record).status).toBe(0);
    const refused = run('providers', 'remove', 'up');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/still serves up-image/);
    expect(run('models', 'remove', 'up-image').status).toBe(0);
    expect(run('providers', 'remove', 'up').status).toBe(0);
    expect(run('providers', 'add', '--kind', 'openai', '--id', 'bad id!', '--base-url', 'http://x').status).toBe(2);
    expect(run('providers', 'add', '--kind', 'openai', '--id', 'nourl').status).toBe(2);
  });

  it('keys update changes the access type and allowance; keys usage reports requests, tokens and spend', async () => {
    const key = JSON.parse(run('keys', 'create', '--access', 'free', '--json').stdout) as { id: string; token: string };
    expect(run('keys', 'update', key.id, '--access', 'pro', '--allowance-usd', '3').status).toBe(0);
    const shown = JSON.parse(run('balance', 'show', key.id, '--json').stdout);
    expect(shown).toMatchObject({ access: 'pro', allowance_remaining_usd: '3.00000000' });
    const ok = await postJson(`${server.baseUrl}/images/generations`, { model: 'local-image', prompt: 'usage', size: '256x256' }, key.token);
    expect(ok.status).toBe(200);
    // The server writes usage rows in small batches, a moment after the answer: wait for this one.
    type Usage = { totals: { requests: number; output_tokens: number; spend_usd: string } };
    const usage = await waitFor(async () => {
      const shown = JSON.parse(run('keys', 'usage', key.id, '--json').stdout) as Usage;
      return shown.totals.requests > 0 ? shown : null;
    }, 20_000);
    expect(usage.totals.requests).toBe(1);
    expect(usage.totals.output_tokens).toBe(64);
    expect(usage.totals.spend_usd).toBe((ok.body as { usage: { cost_usd: string } }).usage.cost_usd);
    expect(run('keys', 'update', key.id).status).toBe(2);
    expect(run('keys', 'update', key.id, '--access', 'gold').status).toBe(2);
  });

  it('a new data dir and its database are readable by the owner only', () => {
    const dir = join(tempDir('mgw-mode-'), 'fresh', 'data');
    expect(mgw(['keys', 'create', '--access', 'free', '--data-dir', dir]).status).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'gateway.db')).mode & 0o777).toBe(0o600);
  });

  it('a data dir inside a file is a usage error in one clear line, naming the file, not a raw errno', () => {
    const blocker = join(tempDir('mgw-block-'), 'a-file');
    writeFileSync(blocker, 'in the way');
    const result = mgw(['keys', 'list', '--data-dir', join(blocker, 'data')]);
    expect(result).toMatchObject({ status: 2, stdout: '', stderr: `mgw: the data dir ${join(blocker, 'data')} cannot be created: ${blocker} is a file, not a directory\n` });
  });

  it.each([
    ['--data-dir', (file: string) => mgw(['keys', 'list', '--data-dir', file])],
    ['MGW_DATA_DIR', (file: string) => mgw(['models', 'list'], { MGW_DATA_DIR: file })],
    ['serve --data-dir', (file: string) => mgw(['serve', '--port', '0', '--data-dir', file])],
  ])('a data dir that is a file (%s) is a usage error naming it, not "EEXIST: file already exists, mkdir"', (_how, call) => {
    const file = join(tempDir('mgw-file-dir-'), 'gateway-data');
    writeFileSync(file, 'not a directory');
    expect(call(file)).toMatchObject({ status: 2, stdout: '', stderr: `mgw: the data dir ${file} is a file, not a directory\n` });
  });

  it("commands read the data dir's config.json limits, as the server does", () => {
    const dir = tempDir('mgw-limits-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ limits: { dailyTokens: { free: 2500 } } }));
    const key = JSON.parse(mgw(['keys', 'create', '--access', 'free', '--json', '--data-dir', dir]).stdout) as { id: string };
    const usage = JSON.parse(mgw(['keys', 'usage', key.id, '--json', '--data-dir', dir]).stdout) as { daily_token_quota: number };
    expect(usage.daily_token_quota).toBe(2500);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [{ billingPeriodDays: 0 }, 'limits.billingPeriodDays must be a whole number of days, at least 1'],
    [{ requests: { free: { perMinute: null } } }, 'limits.requests.free.perMinute must be a whole number of requests, at least 1'],
    [{ requests: { pro: { perSecond: '50' } } }, 'limits.requests.pro.perSecond must be a whole number of requests, at least 1'],
    [{ dailyTokens: { free: null } }, 'limits.dailyTokens.free must be a whole number of tokens'],
    [{ dailyTokens: { pro: 5 } }, 'limits.dailyTokens.pro is not an access with a daily quota (anonymous, free)'],
    [{ dailytokens: { free: 5 } }, 'limits.dailytokens is not a setting (requests, dailyTokens, billingPeriodDays)'],
  ])('config.json limits the limiter cannot use (%j) are refused in one line naming the field', (limits, problem) => {
    const dir = tempDir('mgw-bad-limits-');
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ limits }));
    // Before the check, a 0-day period failed key creation with a raw SQLite NOT NULL error, a
    // null window refused every request and a null daily count lifted the quota.
    expect(mgw(['keys', 'create', '--access', 'pro', '--allowance-usd', '1', '--data-dir', dir])).toMatchObject({ status: 2, stdout: '', stderr: `mgw: ${config}: ${problem}.\n` });
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [{ failures: 0 }, 'circuitBreaker.failures must be a whole number from 1 to 1000'],
    [{ skipSeconds: 1.5 }, 'circuitBreaker.skipSeconds must be a whole number from 1 to 86400'],
    [{ pauseSeconds: 30 }, 'circuitBreaker takes failures and skipSeconds, not "pauseSeconds"'],
    [[3, 30], 'circuitBreaker must be an object such as {"failures": 3, "skipSeconds": 30}'],
  ])('a config.json circuitBreaker the breaker cannot use (%j) is refused in one line naming the field', (circuitBreaker, problem) => {
    const dir = tempDir('mgw-bad-breaker-');
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ circuitBreaker }));
    expect(mgw(['models', 'list', '--data-dir', dir])).toMatchObject({ status: 2, stdout: '', stderr: `mgw: ${config}: ${problem}.\n` });
    // Either number alone is fine: the other keeps its default.
    writeFileSync(config, JSON.stringify({ circuitBreaker: { skipSeconds: 5 } }));
    expect(mgw(['models', 'list', '--data-dir', dir]).status).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('unknown key ids are reported in one line', () => {
    const result = run('balance', 'show', 'key_doesnotexist');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^mgw: No key with id key_doesnotexist/);
  });

  it.each([[['--data-dir', '']], [['--data-dir=']]])('an empty --data-dir (%j) is a usage error, not the default data dir', (flag) => {
    const home = tempDir('mgw-xdg-');
    const result = mgw(['keys', 'create', '--access', 'free', ...flag], { XDG_DATA_HOME: home, MGW_DATA_DIR: '' });
    expect(result).toMatchObject({ status: 2, stdout: '', stderr: 'mgw: --data-dir needs a directory\n' });
    expect(existsSync(join(home, 'media-gateway-studio'))).toBe(false);
    rmSync(home, { recursive: true, force: true });
  });

  it("serve applies config.json's allowAnonymous and limits: a request without a token acts as anonymous, within the owner's windows", async () => {
    const dir = tempDir('mgw-anonymous-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ allowAnonymous: true, limits: { requests: { anonymous: { perSecond: 3 } } } }));
    const anonymous = await serve(['--data-dir', dir]);
    try {
      const response = await postJson(`${anonymous.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x', size: '256x256' }, undefined);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
      const pro = await postJson(`${anonymous.baseUrl}/images/generations`, { model: 'local-image-pro', prompt: 'x', size: '256x256' }, undefined);
      expect(pro.status).toBe(402);
    } finally {
      await anonymous.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    // Without the setting, the same request is refused (the default, checked in the shared server).
    const refused = await postJson(`${server.baseUrl}/images/generations`, { model: 'local-image', prompt: 'x', size: '256x256' }, undefined);
    expect(refused.status).toBe(401);
    expect(errorOf(refused).code).toBe('missing_api_key');
  });

  it('an empty --host is a usage error: Node would bind it on every interface', async () => {
    const dir = tempDir('mgw-host-');
    const result = await mgwAsync(['serve', '--port', '0', '--host', '', '--data-dir', dir]);
    expect(result).toMatchObject({ status: 2, stdout: '' });
    expect(result.stderr).toMatch(/^mgw: --host needs a host name or address \(usage: mgw serve /);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serve --host 0.0.0.0 announces loopback URLs the server answers, not 0.0.0.0 that its Host check refuses', async () => {
    const dir = tempDir('mgw-wildcard-');
    const wildcard = await serve(['--host', '0.0.0.0', '--data-dir', dir]); // waits for "listening on http://127.0.0.1:<port>/v1"
    try {
      expect((await request(`${wildcard.baseUrl}/models`)).status).toBe(200);
      expect((await request(wildcard.baseUrl.replace(/\/v1$/, '/studio/'))).status).toBe(200);
    } finally {
      await wildcard.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keys create refuses a label over 200 characters or with control characters, instead of cutting it or breaking keys list', () => {
    const labelled = (label: string) => (JSON.parse(run('keys', 'list', '--json').stdout) as { label: string }[]).some((k) => k.label === label);
    for (const [label, why] of [['L'.repeat(201), /at most 200 characters/], ['two\nlines', /control characters/], ['\u001b[31mred', /control characters/]] as const) {
      const result = run('keys', 'create', '--access', 'free', '--label', label);
      expect(result).toMatchObject({ status: 2, stdout: '' });
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(why);
    }
    expect(labelled('L'.repeat(200))).toBe(false);
    expect(run('keys', 'create', '--access', 'free', '--label', 'L'.repeat(200)).status).toBe(0);
    expect(labelled('L'.repeat(200))).toBe(true);
  });

  it.each([
    ['models', 'remove', 'a\nb'],
    ['keys', 'revoke', 'key_x\u001b[31m'],
    ['balance', 'show', 'key_x\r'],
    ['providers', 'test', 'a\nb'],
    ['providers', 'add', '--kind', 'openai', '--id', 'up\nx', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'k'],
    ['models', 'put', 'local-image', '--upstream-model', 'fal-ai/x\ny', '--json', '{}'],
    ['models', 'put', 'new-model', '--provider', 'lo\tcal', '--json', '{}'],
  ])('an id or name with a line break or control character is refused as such, in one line: mgw %s %s', (...args) => {
    const before = run('models', 'list', '--json').stdout;
    const result = run(...args);
    expect(result).toMatchObject({ status: 2, stdout: '' });
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const value = args.find((arg) => /\p{Cc}/u.test(arg))!;
    expect(result.stderr).toContain(` ${JSON.stringify(value)} contains a line break or control character (usage: mgw ${args[0]} ${args[1]} `);
    expect(run('models', 'list', '--json').stdout).toBe(before);
  });

  it('MGW_DATA_DIR picks the data dir when --data-dir is absent', () => {
    const other = tempDir('mgw-env-');
    const created = mgw(['keys', 'create', '--access', 'free', '--json'], { MGW_DATA_DIR: other });
    expect(created.status).toBe(0);
    const listed = mgw(['keys', 'list', '--json'], { MGW_DATA_DIR: other });
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    rmSync(other, { recursive: true, force: true });
  });
});

describe('mgw help', () => {
  // Every subcommand, as `mgw help` must list it: each prints its own usage on a bad option.
  const COMMANDS = [
    ['serve'],
    ['keys', 'create'],
    ['keys', 'list'],
    ['keys', 'revoke'],
    ['keys', 'update'],
    ['keys', 'usage'],
    ['balance', 'top-up'],
    ['balance', 'show'],
    ['models', 'list'],
    ['models', 'put'],
    ['models', 'remove'],
    ['models', 'discover'],
    ['providers', 'add'],
    ['providers', 'update'],
    ['providers', 'list'],
    ['providers', 'remove'],
    ['providers', 'test'],
  ];

  it("lists every subcommand with the usage line the subcommand itself prints", () => {
    const help = run('--help');
    expect(help.status).toBe(0);
    for (const command of COMMANDS) {
      const refused = run(...command, '--no-such-option');
      expect(refused.status, command.join(' ')).toBe(2);
      const usage = /\(usage: (.+)\)$/.exec(refused.stderr.trim())?.[1];
      expect(usage, refused.stderr).toBeDefined();
      expect(help.stdout, command.join(' ')).toContain(`  ${usage}\n`);
      // One short line: no parseArgs advice about '--'.
      expect(refused.stderr).not.toMatch(/To specify a positional argument/);
    }
  });

  it('mgw <command> [<sub>] --help prints that command\'s usage and exits 0', () => {
    const update = run('providers', 'update', '--help');
    expect(update).toMatchObject({ status: 0, stdout: 'mgw providers update --id ID [--base-url URL] [--api-key KEY | --api-key-env VAR] [--timeout SECONDS|default]\n' });
    const keys = run('keys', '-h');
    expect(keys.status).toBe(0);
    expect(keys.stdout.trim().split('\n')).toHaveLength(5);
    expect(run('serve', '--help').stdout).toBe('mgw serve [--host 127.0.0.1] [--port 8787] [--log-level info] [--data-dir DIR] [--database URL] [--files-dir DIR]\n');
    expect(run('nope', '--help').status).toBe(2);
  });

  it.each(['keys', 'balance', 'models', 'providers', 'serve'])('mgw help %s prints only that group\'s usage lines, as its --help does', (group) => {
    const help = run('help', group);
    expect(help).toMatchObject({ status: 0, stderr: '' });
    const lines = help.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(`mgw ${group} `) || line === `mgw ${group}`, line).toBe(true);
    expect(help.stdout).toBe(run(group, '--help').stdout);
  });

  it('mgw help <command> <sub> prints that one line; an unknown command is a usage error', () => {
    expect(run('help', 'models', 'put')).toMatchObject({ status: 0, stdout: "mgw models put <id> [--provider ID] [--upstream-model NAME] | [--route PROVIDER[:UPSTREAM_MODEL] ...] [--workflow FILE.json|builtin | --template FILE.json|builtin] --json '<model record fields>'\n" });
    const unknown = run('help', 'nope');
    expect(unknown).toMatchObject({ status: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^mgw: unknown command "nope"/);
    // An unknown subcommand too, whichever way help is asked for: not its group's lines, exit 0.
    for (const args of [['help', 'keys', 'nope'], ['keys', 'nope', '--help']]) {
      const sub = run(...args);
      expect(sub, args.join(' ')).toMatchObject({ status: 2, stdout: '' });
      expect(sub.stderr).toMatch(/^mgw: unknown command "keys nope"/);
    }
    // An option in the subcommand's place still shows the group.
    expect(run('serve', '--port', '0', '--help')).toMatchObject({ status: 0, stdout: 'mgw serve [--host 127.0.0.1] [--port 8787] [--log-level info] [--data-dir DIR] [--database URL] [--files-dir DIR]\n' });
  });

  it('mgw with no command is a usage error: the help on stderr, exit 2', () => {
    const bare = run();
    expect(bare).toMatchObject({ status: 2, stdout: '' });
    expect(bare.stderr).toContain('mgw providers update --id ID');
  });
});
