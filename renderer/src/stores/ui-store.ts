// App chrome: the current view, the theme and transient notices.
import { createStore, type StoreApi } from 'zustand/vanilla';

export const VIEWS = ['models', 'images', 'edit', 'videos', 'billing', 'keys', 'providers', 'activity'] as const;
export type ViewId = (typeof VIEWS)[number];
export type Theme = 'light' | 'dark';

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

export interface UiState {
  view: ViewId;
  theme: Theme;
  /** True once the user picked a theme; until then it follows the system. */
  themeChosen: boolean;
  toasts: Toast[];
  /** False while the event stream to the gateway is down (headless: the server stopped). */
  connected: boolean;
  setConnected(connected: boolean): void;
  setView(view: ViewId): void;
  toggleTheme(): void;
  followSystemTheme(theme: Theme): void;
  notify(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
}

export type UiStore = StoreApi<UiState>;

export const isViewId = (value: string): value is ViewId => (VIEWS as readonly string[]).includes(value);

export function createUiStore(initial: { theme: Theme; themeChosen?: boolean; view?: ViewId }): UiStore {
  let nextToast = 1;
  return createStore<UiState>()((set, get) => ({
    view: initial.view ?? 'images',
    theme: initial.theme,
    themeChosen: initial.themeChosen ?? false,
    toasts: [],
    connected: true,
    setConnected: (connected) => set({ connected }),
    setView: (view) => set({ view }),
    toggleTheme: () => set({ theme: get().theme === 'dark' ? 'light' : 'dark', themeChosen: true }),
    followSystemTheme: (theme) => {
      if (!get().themeChosen) set({ theme });
    },
    notify: (text, kind = 'info') => set({ toasts: [...get().toasts, { id: nextToast++, kind, text }].slice(-4) }),
    dismiss: (id) => set({ toasts: get().toasts.filter((toast) => toast.id !== id) }),
  }));
}
