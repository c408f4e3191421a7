// The built studio page (dist/renderer/index.html, what both Electron's app:// scheme and the
// headless /studio/ route serve) and its Content-Security-Policies: no inline script, no inline
// event handler, no external origin, and CSPs that allow only the page's own scripts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELECTRON_CSP } from '../../electron/shell/window-options.js';
import { STUDIO_CSP } from '../../electron/http/studio-routes.js';
import { RENDERER_DIST } from '../../electron/project-paths.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { rawRequest } from './support.js';
import { registerGateway } from '../helpers/conformance.js';

const INDEX = join(RENDERER_DIST, 'index.html');

function tags(html: string): { name: string; attrs: Map<string, string>; raw: string; inner: string }[] {
  const out: { name: string; attrs: Map<string, string>; raw: string; inner: string }[] = [];
  const tag = /<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    const attrs = new Map<string, string>();
    const attr = /([^\s=>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
    for (let a = attr.exec(match[2]!); a; a = attr.exec(match[2]!)) attrs.set(a[1]!.toLowerCase(), (a[2] ?? '').replace(/^["']|["']$/g, ''));
    const name = match[1]!.toLowerCase();
    let inner = '';
    if (name === 'script' || name === 'style') {
      const close = html.toLowerCase().indexOf(`</${name}>`, tag.lastIndex);
      inner = close === -1 ? html.slice(tag.lastIndex) : html.slice(tag.lastIndex, close);
    }
    out.push({ name, attrs, raw: match[0], inner });
  }
  return out;
}

function directives(csp: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of csp.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    if (map.has(name.toLowerCase())) throw new Error(`directive ${name} appears twice`);
    map.set(name.toLowerCase(), sources);
  }
  return map;
}

describe('dist/renderer/index.html', () => {
  it('exists (npm run build has run)', () => {
    expect(existsSync(INDEX), `${INDEX} is missing: run npm run build`).toBe(true);
  });

  const html = existsSync(INDEX) ? readFileSync(INDEX, 'utf8') : '';
  const all = tags(html);

  it('has no inline <script>: every script has a src and no body', () => {
    const scripts = all.filter((t) => t.name === 'script');
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script.attrs.get('src'), script.raw).toBeTruthy();
      expect(script.inner.trim(), script.raw).toBe('');
    }
    // Also no script hidden from the tag scanner (comments, odd casing).
    expect((html.match(/<script\b/gi) ?? []).length).toBe(scripts.length);
  });

  it('has no inline event handlers, javascript: URLs or inline styles', () => {
    for (const tag of all) {
      for (const [name, value] of tag.attrs) {
        expect(name.startsWith('on'), `${tag.raw} has ${name}`).toBe(false);
        expect(value.trim().toLowerCase().startsWith('javascript:'), tag.raw).toBe(false);
        expect(name, tag.raw).not.toBe('style');
      }
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(all.filter((t) => t.name === 'style' && t.inner.trim() !== '')).toEqual([]);
  });

  it('references no external origin: every src and href is relative and stays inside dist/renderer', () => {
    const refs = all.flatMap((t) => ['src', 'href', 'srcset', 'action', 'data', 'poster'].filter((a) => t.attrs.has(a)).map((a) => ({ tag: t.raw, value: t.attrs.get(a)! })));
    expect(refs.length).toBeGreaterThan(0);
    for (const { tag, value } of refs) {
      expect(value, tag).not.toMatch(/^[a-z][a-z0-9+.-]*:/i); // http:, https:, data:, blob:, file:, ...
      expect(value, tag).not.toMatch(/^\/\//); // protocol-relative
      expect(value, tag).not.toMatch(/^\//); // absolute path: breaks under app://studio/ and /studio/
      const target = normalize(join(RENDERER_DIST, value.split(/[?#]/)[0]!));
      expect(relative(RENDERER_DIST, target).startsWith('..'), tag).toBe(false);
      expect(existsSync(target), `${tag} points at a missing file`).toBe(true);
    }
    expect(html).not.toMatch(/<base\b/i);
    expect(html).not.toMatch(/<(iframe|object|embed|frame)\b/i);
  });

  it('the built assets load nothing from another origin either', () => {
    const assets = join(RENDERER_DIST, 'assets');
    for (const name of readdirSync(assets).filter((n) => n.endsWith('.css'))) {
      const css = readFileSync(join(assets, name), 'utf8');
      expect(css, name).not.toMatch(/@import\s+(url\()?["']?(https?:)?\/\//i);
      expect(css, name).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
    }
  });
});

describe('the CSP constants', () => {
  it.each([
    ['ELECTRON_CSP (electron/shell/window-options.ts)', ELECTRON_CSP],
    ['STUDIO_CSP (electron/http/studio-routes.ts)', STUDIO_CSP],
  ])('%s allows only its own scripts', (_name, csp) => {
    const map = directives(csp);
    expect(map.get('default-src')).toEqual(["'self'"]);
    expect(map.get('script-src')).toEqual(["'self'"]);
    expect(map.get('object-src')).toEqual(["'none'"]);
    expect(map.get('base-uri')).toEqual(["'none'"]);
    expect(map.get('frame-ancestors')).toEqual(["'none'"]);
    // Forms may post nowhere: without it, form-action falls back to no restriction at all.
    expect(map.get('form-action')).toEqual(["'none'"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("'unsafe-inline'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(csp).not.toContain("'unsafe-hashes'");
    for (const [name, sources] of map) {
      for (const source of sources) {
        expect(source, `${name} ${source}`).not.toMatch(/^\*|^(https?|wss?|ftp):|^https?:\/\/|\*\./);
      }
    }
  });
});

describe('the headless studio serves the page and its assets with STUDIO_CSP', () => {
  let t: TestGateway;
  let studio: Studio;
  let server: RunningServer;
  beforeAll(async () => {
    t = await startTestGateway({ background: false });
    studio = await createStudio(t.gateway, { version: 'test' });
    server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, studio: { studio, ownerToken: loadStudioToken(t.dataDir) } });
    registerGateway(server.baseUrl);
  });
  afterAll(async () => {
    studio?.dispose();
    await server?.close();
    await t?.close();
  });

  it('every file of dist/renderer carries exactly STUDIO_CSP and nosniff', async () => {
    const html = readFileSync(INDEX, 'utf8');
    const files = ['', 'index.html', ...tags(html).flatMap((t) => [t.attrs.get('src'), t.attrs.get('href')]).filter((v): v is string => !!v).map((v) => v.replace(/^\.\//, ''))];
    for (const file of files) {
      const response = await rawRequest({ port: server.port, path: `/studio/${file}` });
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-security-policy'), file).toBe(STUDIO_CSP);
      expect(response.headers.get('x-content-type-options'), file).toBe('nosniff');
      expect(response.headers.get('access-control-allow-origin'), file).toBeNull();
    }
  });
});
