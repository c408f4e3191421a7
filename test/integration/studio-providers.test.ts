// providers.remove and providers.add through the studio's dispatch: remove is refused while
// catalog models point at the provider, and with remove_models the provider and its models go
// in one call; add names an empty field in words; catalog.remove takes one model out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../electron/core/errors.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let t: TestGateway;
let studio: Studio;

beforeAll(async () => {
  t = await startTestGateway({ background: false });
  studio = await createStudio(t.gateway, { version: 'test' });
});
afterAll(async () => {
  studio.dispose();
  await t.close();
});

const catalogIds = async () =>
  ((await studio.dispatch('catalog.list', {})) as { models: { record: { id: string } }[] }).models.map((m) => m.record.id);

async function addProviderWithModels(id: string, models: string[]): Promise<void> {
  await studio.dispatch('providers.add', { id, kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-unused' });
  const template = (await t.gateway.catalog.find('local-image'))!.record;
  for (const model of models) {
    await t.gateway.catalog.put({ record: { ...template, id: `${id}/${model}` }, providerId: id, upstreamModel: model });
  }
}

describe('providers.remove', () => {
  it('is refused while the provider serves models, and leaves everything in place', async () => {
    await addProviderWithModels('keep', ['gpt-image-1']);
    const refused = await studio.dispatch('providers.remove', { id: 'keep' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).message).toContain('still serves keep/gpt-image-1');
    expect(await catalogIds()).toContain('keep/gpt-image-1');
  });

  it('with remove_models removes the provider and only its models, and pushes catalog.changed', async () => {
    await addProviderWithModels('gone', ['gpt-image-1', 'dall-e-3']);
    const events: string[] = [];
    const off = studio.events.subscribe((event) => events.push(event));
    const result = await studio.dispatch('providers.remove', { id: 'gone', remove_models: true });
    off();
    expect(result).toEqual({ removed: true, removed_models: expect.arrayContaining(['gone/gpt-image-1', 'gone/dall-e-3']) });
    expect((result as { removed_models: string[] }).removed_models).toHaveLength(2);
    const ids = await catalogIds();
    expect(ids.filter((m) => m.startsWith('gone/'))).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['keep/gpt-image-1', 'local-image']));
    const providers = (await studio.dispatch('providers.list', {})) as { providers: { id: string }[] };
    expect(providers.providers.map((p) => p.id)).toEqual(['keep']);
    expect(events).toContain('catalog.changed');
  });

  it('an unknown provider is not_found, and no model is touched', async () => {
    const before = await catalogIds();
    const missing = await studio.dispatch('providers.remove', { id: 'local', remove_models: true }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'not_found' });
    expect(await catalogIds()).toEqual(before);
  });
});

describe('providers.add input', () => {
  it('an empty id or key is refused in words, naming the field', async () => {
    const noId = await studio.dispatch('providers.add', { id: '', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-x' }).catch((e: unknown) => e);
    expect(noId).toMatchObject({ code: 'invalid_request', param: 'id', message: 'id: must not be empty.' });
    const noKey = await studio.dispatch('providers.add', { id: 'blank', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: '' }).catch((e: unknown) => e);
    expect(noKey).toMatchObject({ code: 'invalid_request', param: 'api_key', message: 'api_key: must not be empty.' });
  });

  it('refuses a key that cannot go in a header (a NUL, a line break), naming api_key, and adds nothing', async () => {
    for (const key of ['sk-NUL\u0000-1234', 'sk-LINE-1234\r\n']) {
      const refused = await studio.dispatch('providers.add', { id: 'oddkey', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: key }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GatewayError);
      expect(refused).toMatchObject({ code: 'invalid_request', param: 'api_key' });
    }
    const providers = (await studio.dispatch('providers.list', {})) as { providers: { id: string }[] };
    expect(providers.providers.map((p) => p.id)).not.toContain('oddkey');
  });
});

describe('catalog.remove', () => {
  it('takes the model out of the catalog (what GET /v1/models lists) and pushes catalog.changed; an unknown one is not_found', async () => {
    await addProviderWithModels('gone-soon', ['gpt-image-1']);
    const events: string[] = [];
    const off = studio.events.subscribe((event) => events.push(event));
    expect(await studio.dispatch('catalog.remove', { id: 'gone-soon/gpt-image-1' })).toEqual({ removed: true });
    off();
    expect(await catalogIds()).not.toContain('gone-soon/gpt-image-1');
    expect(events).toContain('catalog.changed');
    const again = await studio.dispatch('catalog.remove', { id: 'gone-soon/gpt-image-1' }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'not_found', param: 'id' }); // the studio's field, not the core's "model"
  });
});
