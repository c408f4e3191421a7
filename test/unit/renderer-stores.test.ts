import { describe, expect, it } from 'vitest';
import type { ActivityEntry, GalleryItem } from '../../shared/studio-contract.js';
import { createCatalogStore } from '../../renderer/src/stores/catalog-store.js';
import { createImagesStore } from '../../renderer/src/stores/images-store.js';
import { connectStudioEvents, createStudioStores, loadInitial } from '../../renderer/src/stores/studio-stores.js';
import { createVideosStore, quoteKey } from '../../renderer/src/stores/videos-store.js';
import { StudioError } from '../../renderer/src/transport/studio-error.js';
import { createFakeClient, flush, video } from '../../renderer/test-support/fake-client.js';

const item = (id: string, overrides: Partial<GalleryItem> = {}): GalleryItem => ({
  id,
  kind: 'generation',
  model: 'local-image',
  prompt: 'a red fox',
  width: 512,
  height: 512,
  cost_usd: '0.00125000',
  created_at: 1_795_250_000,
  media: `gallery/${id}.png`,
  ...overrides,
});

const entry = (id: number): ActivityEntry => ({
  id,
  at: 1_795_250_000_000,
  key_id: 'key_1',
  key_label: 'laptop',
  method: 'POST',
  endpoint: '/v1/images/generations',
  model: 'local-image',
  status: 200,
  latency_ms: 42,
  cost_usd: '0.00100000',
});

function setup() {
  const client = createFakeClient();
  const stores = createStudioStores(client, { theme: 'light' });
  const disconnect = connectStudioEvents(stores, client);
  return { client, stores, disconnect };
}

describe('videos store', () => {
  it('applies videos.updated events in place, without reloading the list', async () => {
    const { client, stores } = setup();
    client.handle('videos.list', () => ({ videos: [video('video_b'), video('video_a', { status: 'completed', progress: 100 })] }));
    await stores.videos.getState().load();
    expect(client.countCalls('videos.list')).toBe(1);

    client.emit('videos.updated', { video: video('video_b', { status: 'in_progress', progress: 40 }) });
    let list = stores.videos.getState().videos;
    expect(list.map((v) => v.id)).toEqual(['video_b', 'video_a']);
    expect(list[0]).toMatchObject({ status: 'in_progress', progress: 40 });

    // An older snapshot arriving late must not move the job backwards.
    client.emit('videos.updated', { video: video('video_b', { status: 'queued', progress: 0 }) });
    expect(stores.videos.getState().videos[0]).toMatchObject({ status: 'in_progress', progress: 40 });

    client.emit('videos.updated', { video: video('video_b', { status: 'in_progress', progress: 70 }) });
    client.emit('videos.updated', { video: video('video_b', { status: 'in_progress', progress: 60 }) });
    expect(stores.videos.getState().videos[0]).toMatchObject({ status: 'in_progress', progress: 70 });

    client.emit('videos.updated', {
      video: video('video_b', { status: 'completed', progress: 100, media: 'videos/video_b.mp4', cost_usd: '0.10000000' }),
    });
    list = stores.videos.getState().videos;
    expect(list[0]).toMatchObject({ status: 'completed', progress: 100, media: 'videos/video_b.mp4' });
    expect(list[1]!.id).toBe('video_a');
    expect(client.countCalls('videos.list')).toBe(1);
    // Finishing a job that was active raises a notice.
    expect(stores.ui.getState().toasts.map((t) => t.text)).toEqual(['Video video_b is ready']);
  });

  it('a job the user cancelled raises no failure notice, whichever of the reply and the event comes first', async () => {
    const { client, stores } = setup();
    const cancelled = (id: string) =>
      video(id, { status: 'failed', error: { code: 'cancelled', message: 'The task was cancelled by its owner.' } });
    client.handle('videos.list', () => ({ videos: [video('video_a', { status: 'in_progress' }), video('video_b', { status: 'in_progress' })] }));
    await stores.videos.getState().load();

    // The event before the reply (what a local task does: it ends at once).
    let release: () => void = () => {};
    client.handle('videos.cancel', ({ id }) => new Promise((resolve) => (release = () => resolve({ video: cancelled(id) }))));
    const running = stores.videos.getState().cancel('video_a');
    client.emit('videos.updated', { video: cancelled('video_a') });
    release();
    await running;
    // The reply before the event.
    client.handle('videos.cancel', ({ id }) => ({ video: cancelled(id) }));
    await stores.videos.getState().cancel('video_b');
    client.emit('videos.updated', { video: cancelled('video_b') });
    expect(stores.videos.getState().videos.map((v) => v.status)).toEqual(['failed', 'failed']);
    expect(stores.ui.getState().toasts).toEqual([]);

    // A job that failed on its own still says so.
    client.emit('videos.updated', { video: video('video_c', { status: 'in_progress' }) });
    client.emit('videos.updated', { video: video('video_c', { status: 'failed', error: { code: 'upstream_unavailable', message: 'Down.' } }) });
    expect(stores.ui.getState().toasts.map((t) => [t.kind, t.text])).toEqual([['error', 'Video video_c failed: Down.']]);
  });

  it('puts a job it did not know first, and a create reply never overwrites a newer event', async () => {
    const { client, stores } = setup();
    let release: () => void = () => {};
    client.handle('videos.create', () => new Promise((resolve) => (release = () => resolve({ video: video('video_new') }))));
    const created = stores.videos.getState().create({ model: 'local-video', prompt: 'waves', seconds: 2, size: '480p' });
    expect(stores.videos.getState().creating).toBe(true);
    client.emit('videos.updated', { video: video('video_new', { status: 'in_progress', progress: 55 }) });
    release();
    await created;
    const list = stores.videos.getState().videos;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: 'video_new', status: 'in_progress', progress: 55 });
    expect(stores.videos.getState().creating).toBe(false);
  });

  it('keeps only the quote of the latest selection', async () => {
    const client = createFakeClient();
    const store = createVideosStore(client);
    const pending: Record<number, (v: { hold_usd: string; price_per_second_usd: string }) => void> = {};
    client.handle('videos.quote', (input) => new Promise((resolve) => (pending[input.seconds] = resolve)));
    const slow = store.getState().requestQuote({ model: 'local-video', seconds: 4, request_type: 'text-to-video' });
    const fast = store.getState().requestQuote({ model: 'local-video', seconds: 8, request_type: 'text-to-video' });
    pending[8]!({ hold_usd: '0.40000000', price_per_second_usd: '0.05000000' });
    await fast;
    pending[4]!({ hold_usd: '0.20000000', price_per_second_usd: '0.05000000' });
    await slow;
    expect(store.getState().quote).toEqual({
      hold_usd: '0.40000000',
      price_per_second_usd: '0.05000000',
      key: quoteKey({ model: 'local-video', seconds: 8, request_type: 'text-to-video' }),
    });
  });

  it('shows a failed cancel as a readable error', async () => {
    const client = createFakeClient();
    const store = createVideosStore(client);
    client.handle('videos.cancel', () => {
      throw new StudioError('not_found', 'No video task video_x', null, 404);
    });
    await store.getState().cancel('video_x');
    expect(store.getState().error).toBe('not_found: No video task video_x');
  });
});

describe('one click, one request (references encoded inside the busy state)', () => {
  const file = (name: string) => new File([new Uint8Array([1, 2, 3])], name, { type: 'image/png' });
  /** An encoder that finishes only when the test says so: the window a second click used to hit. */
  function slowEncoder() {
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const encode = async (f: File) => {
      await done;
      return { name: f.name, mime: f.type, base64: 'AQID' };
    };
    return { encode, finish: () => finish() };
  }

  it('an edit is busy ("preparing") before its files are encoded; a second call meanwhile sends nothing', async () => {
    const client = createFakeClient();
    const { encode, finish } = slowEncoder();
    const store = createImagesStore(client, encode);
    client.handle('images.edit', (input) => ({ item: item('img_edit', { kind: 'edit', prompt: input.prompt }) }));
    const first = store.getState().edit({ model: 'local-image', prompt: 'blur', files: [file('a.png'), file('b.png')] });
    expect(store.getState()).toMatchObject({ editing: true, preparing: true });
    expect(await store.getState().edit({ model: 'local-image', prompt: 'blur', files: [file('a.png')] })).toBeNull();
    finish();
    expect((await first)?.id).toBe('img_edit');
    expect(client.countCalls('images.edit')).toBe(1);
    expect(client.calls[0]!.input).toMatchObject({ images: [{ name: 'a.png', base64: 'AQID' }, { name: 'b.png', base64: 'AQID' }] });
    expect(store.getState()).toMatchObject({ editing: false, preparing: false });
  });

  it('a video creation is busy before its reference is encoded, and each submit carries its own idempotency key', async () => {
    const client = createFakeClient();
    const { encode, finish } = slowEncoder();
    const store = createVideosStore(client, encode);
    let n = 0;
    client.handle('videos.create', () => ({ video: video(`video_${(n += 1)}`) }));
    const input = { model: 'local-animate', prompt: 'pan', seconds: 2, request_type: 'image-to-video' as const };
    const first = store.getState().create({ ...input, file: file('ref.png') });
    expect(store.getState()).toMatchObject({ creating: true, preparing: true });
    expect(await store.getState().create({ ...input, file: file('ref.png') })).toBeNull();
    finish();
    await first;
    await store.getState().create({ ...input, file: file('ref.png') });
    const sent = client.calls.filter((c) => c.method === 'videos.create').map((c) => c.input as { idempotency_key: string; reference: unknown });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.reference).toEqual({ name: 'ref.png', mime: 'image/png', base64: 'AQID' });
    expect(sent[0]!.idempotency_key).toMatch(/^studio-[0-9a-f-]{36}$/);
    expect(sent[1]!.idempotency_key).not.toBe(sent[0]!.idempotency_key);
  });

  it('a file that cannot be read ends the busy state with a readable error', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client, async () => {
      throw new Error('The file could not be read.');
    });
    expect(await store.getState().edit({ model: 'local-image', prompt: 'blur', files: [file('gone.png')] })).toBeNull();
    expect(store.getState()).toMatchObject({ editing: false, preparing: false });
    expect(store.getState().editError).toContain('The file could not be read.');
    expect(client.countCalls('images.edit')).toBe(0);
  });
});

describe('images store', () => {
  it('shows the progress events of its own running request only, and drops them once answered', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client);
    let answer!: (value: { item: ReturnType<typeof item> }) => void;
    client.handle('images.generate', () => new Promise((resolve) => (answer = resolve)));
    const running = store.getState().generate({ model: 'comfy/sdxl', prompt: 'slow' });
    const { progressId } = store.getState();
    expect(progressId).toMatch(/^p-/);
    expect(client.calls.at(-1)?.input).toMatchObject({ progress_id: progressId });
    store.getState().applyProgress('p-someone-else', 80);
    expect(store.getState().progress).toBeNull();
    store.getState().applyProgress(progressId!, 35);
    expect(store.getState().progress).toBe(35);
    answer({ item: item('img_slow') });
    await running;
    expect(store.getState()).toMatchObject({ progress: null, progressId: null, generating: false });
    store.getState().applyProgress(progressId!, 90);
    expect(store.getState().progress).toBeNull();
  });

  it('adds a generated item to the front of the gallery and shows it as the result', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client);
    client.handle('gallery.list', () => ({ items: [item('img_old')] }));
    client.handle('images.generate', (input) => ({ item: item('img_new', { prompt: input.prompt }) }));
    await store.getState().loadGallery();

    const result = await store.getState().generate({ model: 'local-image', prompt: 'a lighthouse', size: '512x512' });
    expect(result?.id).toBe('img_new');
    expect(client.calls.at(-1)).toEqual({
      method: 'images.generate',
      input: { model: 'local-image', prompt: 'a lighthouse', size: '512x512', progress_id: expect.stringMatching(/^p-/) },
    });
    const state = store.getState();
    expect(state.gallery.map((i) => i.id)).toEqual(['img_new', 'img_old']);
    expect(state.generated?.prompt).toBe('a lighthouse');
    expect(state.generating).toBe(false);
    expect(state.generateError).toBeNull();
  });

  it('turns a failed generation into "code: message"', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client);
    client.handle('images.generate', () => {
      throw new StudioError('insufficient_balance', 'Insufficient balance: this request needs $0.01', null, 402);
    });
    expect(await store.getState().generate({ model: 'local-image-pro', prompt: 'x' })).toBeNull();
    expect(store.getState().generateError).toBe('insufficient_balance: Insufficient balance: this request needs $0.01');
    expect(store.getState().gallery).toEqual([]);
  });

  it('keeps the code of an IPC error (an Error carrying code/param) and drops the Electron prefix', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client);
    client.handle('images.edit', () => {
      const error = Object.assign(
        new Error("Error invoking remote method 'studio:call': Error: Reference image too large"),
        { code: 'reference_image_too_large', param: 'images', type: 'reference_image_too_large' },
      );
      throw error;
    });
    await store.getState().edit({ model: 'local-image', prompt: 'blur', files: [] });
    expect(store.getState().editError).toBe('reference_image_too_large: Reference image too large');
  });

  it('clearEditError drops a refusal once the inputs change', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client, async (f) => ({ name: f.name, mime: f.type, base64: '' }));
    client.handle('images.edit', () => {
      throw new StudioError('invalid_request', 'The file "fake.png" is not a PNG, JPEG or WebP image.', 'image', 400);
    });
    await store.getState().edit({ model: 'local-image', prompt: 'blur', files: [new File(['text'], 'fake.png', { type: 'image/png' })] });
    expect(store.getState().editError).toContain('fake.png');
    store.getState().clearEditError();
    expect(store.getState().editError).toBeNull();
  });

  it('removes a deleted item from the gallery and the result pane', async () => {
    const client = createFakeClient();
    const store = createImagesStore(client);
    client.handle('images.generate', () => ({ item: item('img_1') }));
    client.handle('gallery.delete', () => ({ deleted: true }));
    await store.getState().generate({ model: 'local-image', prompt: 'x' });
    await store.getState().remove('img_1');
    expect(store.getState().gallery).toEqual([]);
    expect(store.getState().generated).toBeNull();
  });
});

describe('event wiring', () => {
  it('reloads the catalog on catalog.changed and billing on billing.changed; prepends activity', async () => {
    const { client, stores, disconnect } = setup();
    let models = 1;
    client.handle('catalog.list', () => ({
      models: Array.from({ length: models }, (_, i) => ({ provider: 'local', record: { id: `m${i}` } as never })),
    }));
    let available = '5.00000000';
    client.handle('billing.summary', () => ({
      balance: {
        account_id: 'acct_owner',
        access: 'balance',
        balance_usd: available,
        allowance_remaining_usd: '0',
        holds_usd: '0',
        available_usd: available,
      },
      holds: [],
      ledger: [],
      spend_by_day: [],
    }));
    client.handle('activity.list', () => ({ entries: [entry(1)] }));
    await loadInitial(stores);
    await stores.activity.getState().load();
    expect(stores.catalog.getState().models).toHaveLength(1);

    models = 3;
    client.emit('catalog.changed', {});
    available = '4.90000000';
    client.emit('billing.changed', { account_id: 'acct_owner' });
    client.emit('activity.added', { entry: entry(2) });
    await flush();
    expect(stores.catalog.getState().models).toHaveLength(3);
    expect(stores.billing.getState().summary?.balance.available_usd).toBe('4.90000000');
    expect(stores.activity.getState().entries.map((e) => e.id)).toEqual([2, 1]);

    disconnect();
    client.emit('activity.added', { entry: entry(3) });
    expect(stores.activity.getState().entries.map((e) => e.id)).toEqual([2, 1]);
  });

  it('coalesces a burst of billing.changed into at most one extra reload', async () => {
    const { client, stores } = setup();
    client.handle('billing.summary', async () => {
      await flush();
      return { balance: {} as never, holds: [], ledger: [], spend_by_day: [] };
    });
    for (let i = 0; i < 10; i += 1) client.emit('billing.changed', { account_id: 'acct_owner' });
    await stores.billing.getState().load();
    await flush();
    expect(client.countCalls('billing.summary')).toBe(2);
  });

  it('marks the gateway unreachable while the event stream is down, and reloads what is on screen once it is back', async () => {
    const { client, stores } = setup();
    client.handle('videos.list', () => ({ videos: [video('video_a', { status: 'completed', progress: 100 })] }));
    client.handle('catalog.list', () => ({ models: [] }));
    client.handle('billing.summary', () => ({ balance: {} as never, holds: [], ledger: [], spend_by_day: [] }));
    expect(stores.ui.getState().connected).toBe(true);
    client.disconnect();
    expect(stores.ui.getState().connected).toBe(false);
    client.reconnect();
    expect(stores.ui.getState().connected).toBe(true);
    await flush();
    expect(stores.videos.getState().videos[0]?.status).toBe('completed');
    expect(client.countCalls('catalog.list')).toBe(1);
  });
});

describe('catalog store', () => {
  const model = (id: string) => ({ record: { id } as never, provider: 'local' });

  it('removes a model: gone from the list at once; a refusal is kept as "code: message" and the model stays', async () => {
    const client = createFakeClient();
    client.handle('catalog.list', () => ({ models: [model('a'), model('b')] }));
    client.handle('catalog.remove', ({ id }) => {
      if (id === 'b') throw new StudioError('not_found', 'No model b in the catalog.', 'model', 404);
      return { removed: true };
    });
    const catalog = createCatalogStore(client);
    await catalog.getState().load();
    expect(await catalog.getState().remove('a')).toBe(true);
    expect(catalog.getState().models.map((m) => m.record.id)).toEqual(['b']);
    expect(await catalog.getState().remove('b')).toBe(false);
    expect(catalog.getState()).toMatchObject({ removing: null, removeError: 'not_found: No model b in the catalog.' });
    expect(catalog.getState().models.map((m) => m.record.id)).toEqual(['b']);
    catalog.getState().clearRemoveError();
    expect(catalog.getState().removeError).toBeNull();
  });
});

describe('keys store', () => {
  it('keeps the new token until dismissed and reads the API base URL once', async () => {
    const client = createFakeClient();
    const { keys } = createStudioStores(client, { theme: 'dark' });
    client.handle('system.info', () => ({ version: '0.1.0', api_base_url: 'http://127.0.0.1:8787/v1', data_dir: '/tmp/x', owner_key_id: 'key_owner' }));
    client.handle('keys.list', () => ({ keys: [] }));
    client.handle('keys.create', (input) => ({
      key: { id: 'key_1', label: input.label ?? '', access: input.access, account_id: 'acct_1', token_hint: 'mgw_key_1…', created_at: '2026-01-01T00:00:00Z', revoked_at: null },
      token: 'mgw_key_1_secret',
    }));
    expect(await keys.getState().create({ access: 'balance', balance_usd: '5', label: 'ci' })).toBe(true);
    expect(keys.getState().created?.token).toBe('mgw_key_1_secret');
    expect(keys.getState().apiBaseUrl).toBe('http://127.0.0.1:8787/v1');
    await keys.getState().load();
    expect(client.countCalls('system.info')).toBe(1);
    keys.getState().dismissCreated();
    expect(keys.getState().created).toBeNull();
  });
});

const balanceView = (account: string, usd: string) => ({
  account_id: account,
  access: 'balance' as const,
  balance_usd: usd,
  allowance_remaining_usd: '0.00000000',
  holds_usd: '0.00000000',
  available_usd: usd,
});

describe('keys store actions', () => {
  const row = (revoked: boolean, usd: string) => ({
    id: 'key_1',
    label: 'ci',
    access: 'balance' as const,
    account_id: 'acct_1',
    token_hint: 'mgw_key_1…',
    created_at: '2026-01-01T00:00:00Z',
    revoked_at: revoked ? '2026-01-02T00:00:00Z' : null,
    balance: balanceView('acct_1', usd),
  });

  it('revoke and top-up send the key id and amount, then show the list as it now is', async () => {
    const client = createFakeClient();
    const { keys } = createStudioStores(client, { theme: 'light' });
    let current = row(false, '1.00000000');
    client.handle('system.info', () => ({ version: '0.1.0', api_base_url: null, data_dir: '/tmp/x', owner_key_id: 'key_owner' }));
    client.handle('keys.list', () => ({ keys: [current] }));
    client.handle('keys.topUp', (input) => {
      current = row(false, '3.50000000');
      return { balance: balanceView('acct_1', input.usd === '2.5' ? '3.50000000' : 'wrong') };
    });
    client.handle('keys.revoke', ({ id }) => {
      current = row(true, '3.50000000');
      return { key: { ...current, id } };
    });
    await keys.getState().load();

    expect(await keys.getState().topUp('key_1', '2.5')).toBe(true);
    expect(client.calls.at(-2)).toEqual({ method: 'keys.topUp', input: { id: 'key_1', usd: '2.5' } });
    expect(keys.getState().keys[0]!.balance.balance_usd).toBe('3.50000000');

    expect(await keys.getState().revoke('key_1')).toBe(true);
    expect(client.calls.at(-2)).toEqual({ method: 'keys.revoke', input: { id: 'key_1' } });
    expect(keys.getState().keys[0]!.revoked_at).not.toBeNull();
    expect(keys.getState().actionError).toBeNull();
  });

  it('a refused revoke or top-up is shown as "code: message" on its key', async () => {
    const client = createFakeClient();
    const { keys } = createStudioStores(client, { theme: 'light' });
    client.handle('keys.topUp', () => {
      throw new StudioError('invalid_request', 'A top-up must be a positive amount.', 'amount', 400);
    });
    expect(await keys.getState().topUp('key_1', '0')).toBe(false);
    expect(keys.getState().actionError).toEqual({ id: 'key_1', message: 'invalid_request: A top-up must be a positive amount.' });
  });
});

describe('billing store', () => {
  it('a top-up sends the amount and shows the new balance as soon as it is answered, then reloads the ledger', async () => {
    const client = createFakeClient();
    const { billing } = createStudioStores(client, { theme: 'light' });
    let release: () => void = () => {};
    let summaries = 0;
    client.handle('billing.summary', async () => {
      summaries += 1;
      // The reload after the top-up waits: what shows meanwhile is the top-up's own answer.
      if (summaries > 1) await new Promise<void>((resolve) => (release = resolve));
      return { balance: balanceView('acct_owner', summaries > 1 ? '12.50000000' : '10.00000000'), holds: [], ledger: [], spend_by_day: [] };
    });
    client.handle('billing.topUp', ({ usd }) => ({ balance: balanceView('acct_owner', usd === '2.5' ? '12.50000000' : 'wrong') }));
    await billing.getState().load();

    expect(await billing.getState().topUp('2.5')).toBe(true);
    expect(client.calls.find((c) => c.method === 'billing.topUp')!.input).toEqual({ usd: '2.5' });
    expect(billing.getState().summary!.balance.balance_usd).toBe('12.50000000');
    expect(billing.getState().toppingUp).toBe(false);
    expect(client.countCalls('billing.summary')).toBe(2);
    release();
    await flush();
  });
});

describe('ui store', () => {
  it('follows the system theme until the user toggles it', () => {
    const { ui } = createStudioStores(createFakeClient(), { theme: 'light' });
    ui.getState().followSystemTheme('dark');
    expect(ui.getState().theme).toBe('dark');
    ui.getState().toggleTheme();
    expect(ui.getState()).toMatchObject({ theme: 'light', themeChosen: true });
    ui.getState().followSystemTheme('dark');
    expect(ui.getState().theme).toBe('light');
  });
});
