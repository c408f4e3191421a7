// The owner token arrives once in the URL fragment (#token=...), which never reaches the server
// logs; we move it to sessionStorage and strip it from the address bar so it is not bookmarked.
const STORAGE_KEY = 'mgw.studio.token';

export interface TokenEnv {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState'>;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
}

export function takeToken(env: TokenEnv): string | null {
  const params = new URLSearchParams(env.location.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash) {
    env.storage.setItem(STORAGE_KEY, fromHash);
    params.delete('token');
    const rest = params.toString();
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}${rest ? `#${rest}` : ''}`);
    return fromHash;
  }
  return env.storage.getItem(STORAGE_KEY);
}

export function forgetToken(env: Pick<TokenEnv, 'storage'>): void {
  env.storage.removeItem(STORAGE_KEY);
}

/** The studio root: the path up to and including /studio/ (dev server at "/" -> /studio/). */
export function studioBase(location: Pick<Location, 'origin' | 'pathname'>): string {
  const at = location.pathname.lastIndexOf('/studio/');
  const prefix = at >= 0 ? location.pathname.slice(0, at) : '';
  return `${location.origin}${prefix}/studio/`;
}
