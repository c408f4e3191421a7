// The module graph has no circles (type-only imports included: a circle of types is still two
// concerns that cannot be read apart), and the catalog depends on no request module.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file's relative imports, resolved to the file they name (`.js` specifiers name `.ts`/`.tsx` sources). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name).replace(/\.js$/, ''))
      .map((base) => [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => known.has(candidate)))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan), as paths relative to the repo. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = ['electron', 'shared', 'renderer/src'].flatMap((dir) => sources(join(ROOT, dir)));
const graph = importGraph(files);

describe('the module graph', () => {
  it('reads the imports it checks (the walk finds the core and its edges)', () => {
    const catalog = join(ROOT, 'electron/core/catalog/catalog-service.ts');
    expect(graph.get(catalog)).toContain(join(ROOT, 'electron/core/catalog/model-record-check.ts'));
    expect(circles(new Map([['a', ['b']], ['b', ['a']], ['c', ['a']]]))).toEqual([['a', 'b']]);
  });

  it('has no import circles', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the catalog free of request modules (images, videos, HTTP, studio)', () => {
    const catalogFiles = files.filter((file) => relative(ROOT, file).startsWith('electron/core/catalog/'));
    const requestDirs = ['electron/core/images/', 'electron/core/videos/', 'electron/http/', 'electron/core/studio/'];
    const offending = catalogFiles.flatMap((file) =>
      (graph.get(file) ?? []).filter((target) => requestDirs.some((dir) => relative(ROOT, target).startsWith(dir))).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(offending).toEqual([]);
  });
});
