// Theme: the user's explicit choice (localStorage) wins, else prefers-color-scheme.
import type { Theme } from '../stores/ui-store';

const KEY = 'mgw.studio.theme';

const DARK_QUERY = '(prefers-color-scheme: dark)';

export function initialTheme(): { theme: Theme; themeChosen: boolean } {
  const saved = safeGet(localStorage, KEY);
  if (saved === 'light' || saved === 'dark') return { theme: saved, themeChosen: true };
  return { theme: matchMedia(DARK_QUERY).matches ? 'dark' : 'light', themeChosen: false };
}

/** Calls back when the system scheme changes (the store ignores it once the user chose). */
export function onSystemTheme(listener: (theme: Theme) => void): void {
  matchMedia(DARK_QUERY).addEventListener('change', (event) => listener(event.matches ? 'dark' : 'light'));
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

export function saveTheme(theme: Theme): void {
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Storage may be unavailable (private mode); the toggle still works for this session.
  }
}

export function safeGet(storage: Storage, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}
