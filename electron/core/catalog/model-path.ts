// Model ids and upstream model names end up inside URL paths (fal's {base}/{model_path}, the
// far gateway's model list) and may name files: a ".", ".." or empty segment could step out of
// the path it is joined into, so such names are refused wherever they enter the catalog.

export const UNSAFE_SEGMENT = 'has an empty, "." or ".." path segment';

export function hasUnsafeSegment(name: string): boolean {
  return name.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
}
