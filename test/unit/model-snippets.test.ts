// The "Use this model" snippets: for an image and a video model, every language names the
// gateway's base URL, the model and a size (and duration) the model supports, and holds no key.
import { describe, expect, it } from 'vitest';
import { LOCAL_IMAGE_MODELS, LOCAL_VIDEO_MODELS } from '../../electron/core/providers/local/local-models.js';
import { createKeysStore } from '../../renderer/src/stores/keys-store.js';
import { createFakeClient } from '../../renderer/test-support/fake-client.js';
import type { ModelRecord } from '../../shared/api-types.js';
import { buildModelSnippets, SNIPPET_LANGUAGES, snippetImageSize, snippetKind, snippetVideoShape } from '../../shared/model-snippets.js';

const BASE = 'http://127.0.0.1:8787/v1';
const byId = (models: ModelRecord[], id: string) => models.find((m) => m.id === id)!;
const image = byId(LOCAL_IMAGE_MODELS, 'local-image');
const video = byId(LOCAL_VIDEO_MODELS, 'local-video');
const animate = byId(LOCAL_VIDEO_MODELS, 'local-animate');
const KEY_PLACEHOLDERS = { curl: '"Authorization: Bearer $MGW_API_KEY"', python: 'api_key=os.environ["MGW_API_KEY"]', javascript: 'apiKey: process.env.MGW_API_KEY' };

function expectNoKey(text: string): void {
  expect(text).not.toMatch(/mgw_[A-Za-z0-9]/);
  expect(text).not.toMatch(/Bearer (?!\$MGW_API_KEY)/);
  expect(text).not.toMatch(/sk-/);
}

describe('model snippets', () => {
  it('an image model: generate and edit, at a supported size, in each language', () => {
    expect(snippetKind(image)).toBe('image');
    const size = snippetImageSize(image)!;
    expect(image.capabilities.supported_sizes).toContain(size);
    const snippets = buildModelSnippets(image, `${BASE}/`);
    for (const lang of SNIPPET_LANGUAGES) {
      const text = snippets[lang];
      expect(text, lang).toContain(BASE);
      expect(text, lang).not.toContain(`${BASE}//`);
      expect(text, lang).toContain('local-image');
      expect(text, lang).toContain(size);
      expect(text, lang).toContain(KEY_PLACEHOLDERS[lang]);
      expectNoKey(text);
    }
    expect(snippets.curl).toContain(`${BASE}/images/generations`);
    expect(snippets.curl).toContain(`-d '{"model":"local-image","prompt":"a red fox in the snow","size":"${size}"}'`);
    expect(snippets.curl).toContain(`${BASE}/images/edits`);
    expect(snippets.curl).toContain('-F image=@image.png');
    expect(snippets.curl).toContain('base64 -d > image.png');
    expect(snippets.curl).not.toContain('jq');
    expect(snippets.python).toContain(`client.images.generate(model="local-image", prompt="a red fox in the snow", size="${size}")`);
    expect(snippets.python).toContain('client.images.edit(');
    expect(snippets.javascript).toContain(`client.images.generate({ model: 'local-image', prompt: 'a red fox in the snow', size: '${size}' })`);
    expect(snippets.javascript).toContain('client.images.edit(');
  });

  it('an image model without edits gets no edit example; one without 1024x1024 gets its first size', () => {
    const noEdit: ModelRecord = { ...image, id: 'gen-only', capabilities: { image_generation: true, supported_sizes: ['512x512', '768x768'] } };
    const snippets = buildModelSnippets(noEdit, BASE);
    for (const lang of SNIPPET_LANGUAGES) {
      expect(snippets[lang]).toContain('512x512');
      expect(snippets[lang]).not.toContain('1024x1024');
      expect(snippets[lang]).not.toMatch(/edit/i);
    }
  });

  it('a video model: create, poll and download, with a supported size and duration', () => {
    expect(snippetKind(video)).toBe('video');
    const { size, seconds } = snippetVideoShape(video);
    expect(video.capabilities.supported_sizes).toContain(size);
    expect(video.capabilities.supported_seconds).toContain(Number(seconds));
    const snippets = buildModelSnippets(video, BASE);
    for (const lang of SNIPPET_LANGUAGES) {
      const text = snippets[lang];
      expect(text, lang).toContain(BASE);
      expect(text, lang).toContain('local-video');
      expect(text, lang).toContain(size!);
      expect(text, lang).toContain(lang === 'javascript' ? `'${seconds}'` : `"${seconds}"`);
      expect(text, lang).toContain(KEY_PLACEHOLDERS[lang]);
      expect(text, lang).toContain('video.mp4');
      expect(text, lang).not.toContain('reference.png');
      expectNoKey(text);
    }
    expect(snippets.curl).toContain(`-d '{"model":"local-video","prompt":"waves at sunset","seconds":"${seconds}","size":"${size}"}'`);
    expect(snippets.curl).toMatch(/while .*in_progress.*; do\n {2}sleep 2\n/);
    expect(snippets.curl).toContain(`${BASE}/videos/$id -H`);
    expect(snippets.curl).toContain(`-o video.mp4 ${BASE}/videos/$id/content`);
    expect(snippets.curl).not.toContain('jq');
    expect(snippets.python).toContain('client.videos.retrieve(video.id)');
    expect(snippets.python).toContain('client.videos.download_content(video.id).write_to_file("video.mp4")');
    expect(snippets.javascript).toContain('client.videos.retrieve(video.id)');
    expect(snippets.javascript).toContain('client.videos.downloadContent(video.id)');
  });

  it('a video model that needs a reference image sends one, as multipart', () => {
    const snippets = buildModelSnippets(animate, BASE);
    expect(snippets.curl).toContain('-F input_reference=@reference.png');
    expect(snippets.curl).toContain("-F 'model=local-animate'");
    expect(snippets.curl).not.toContain('Content-Type: application/json');
    expect(snippets.python).toContain('input_reference=reference');
    expect(snippets.javascript).toContain("input_reference: fs.createReadStream('reference.png')");
  });

  it('quotes what the shell would split, and a model of another kind reads its record', () => {
    const odd: ModelRecord = { ...image, id: "it's-mine", capabilities: { image_generation: true, image_edit: true, supported_sizes: ['1024x1024'] } };
    const { curl } = buildModelSnippets(odd, BASE);
    expect(curl).toContain(`-d '{"model":"it'\\''s-mine",`);
    expect(curl).toContain(`-F model='it'\\''s-mine'`);
    const text: ModelRecord = { ...image, id: 'fal-ai/text', model_type: 'text', capabilities: {} };
    expect(snippetKind(text)).toBe('other');
    expect(buildModelSnippets(text, BASE).curl).toContain(`${BASE}/models/fal-ai%2Ftext`);
  });
});

describe('the base URL the Models view builds the snippets with', () => {
  it('loadInfo reads system.info once, a failure is retried on the next call, and keys.load does not read it again', async () => {
    const client = createFakeClient();
    const keys = createKeysStore(client);
    let fail = true;
    client.handle('system.info', () => {
      if (fail) throw new Error('down');
      return { version: '0.1.0', api_base_url: BASE, data_dir: '/tmp/x', owner_key_id: 'key_owner' };
    });
    client.handle('keys.list', () => ({ keys: [] }));
    await keys.getState().loadInfo();
    expect(keys.getState()).toMatchObject({ apiBaseUrl: null, infoLoaded: false, error: null });
    fail = false;
    await Promise.all([keys.getState().loadInfo(), keys.getState().loadInfo()]);
    expect(keys.getState()).toMatchObject({ apiBaseUrl: BASE, infoLoaded: true });
    await keys.getState().load();
    expect(keys.getState()).toMatchObject({ loaded: true, error: null, ownerKeyId: 'key_owner' });
    expect(client.countCalls('system.info')).toBe(2);
  });
});
