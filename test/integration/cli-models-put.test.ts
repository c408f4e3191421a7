// mgw models put as a real child process: what it refuses, with which exit status and message.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gateway.js';
import { mgw } from '../helpers/cli.js';

let dataDir: string;
beforeAll(() => {
  dataDir = tempDir('mgw-models-put-');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (...args: string[]) => mgw([...args, '--data-dir', dataDir]);

const IMAGE_RECORD = {
  tier: 'turbo', model_type: 'image', pricing_mode: 'token',
  pricing: { input: 1, output: 10, currency: 'USD', unit: '1M tokens' },
  modalities: { input: ['text'], output: ['image'] }, context_window: { tokens: null, chars: 32000 },
  usage_based_only: false, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: { image_generation: true, supported_sizes: ['1024x1024'] },
};

/** One line on stderr, exit status 2, no stack. */
function expectUsageError(result: ReturnType<typeof run>): string {
  expect(result.status).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result.stderr;
}

describe('mgw models put refusals', () => {
  it('quotes the id pattern as it is (capitals allowed), only the first letter of the message lowercased', () => {
    const stderr = expectUsageError(run('models', 'put', 'a b', '--provider', 'local', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain('Invalid model record: id expected string to match');
    expect(stderr).toContain('A-Za-z0-9');
  });

  it('an unknown --provider is a usage error naming it, and nothing is added', () => {
    const stderr = expectUsageError(run('models', 'put', 'newm', '--provider', 'nope', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toMatch(/^mgw: no provider nope\b/);
    expect(stderr).not.toMatch(/not configured/);
    expect(run('models', 'list', '--json').stdout).not.toContain('newm');
  });

  it.each(['a/../../b', 'x/..', 'x/./y', 'a//b', 'a/'])('refuses the id %j (a ".", ".." or empty path segment)', (id) => {
    const stderr = expectUsageError(run('models', 'put', id, '--provider', 'local', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain('Invalid model record: id has an empty, "." or ".." path segment');
    expect(run('models', 'list', '--json').stdout).not.toContain(JSON.stringify(id));
  });

  it.each(['../../../admin?x=1', 'fal-ai/../x', 'fal-ai//x', 'x/'])('refuses --upstream-model %j', (upstream) => {
    const stderr = expectUsageError(run('models', 'put', 'safe-id', '--provider', 'local', '--upstream-model', upstream, '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain(`The upstream model ${JSON.stringify(upstream)} has an empty, "." or ".." path segment`);
    expect(run('models', 'list', '--json').stdout).not.toContain('safe-id');
  });

  it('still takes ids and upstream models with dots and slashes inside segments', () => {
    const put = run('models', 'put', 'vendor/model-1.5', '--provider', 'local', '--upstream-model', 'fal-ai/flux/v1.1', '--json', JSON.stringify(IMAGE_RECORD));
    expect(put.stderr).toBe('');
    expect(put.status).toBe(0);
    expect(run('models', 'remove', 'vendor/model-1.5').status).toBe(0);
  });
});
