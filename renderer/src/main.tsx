// Entry: pick the transport, build the stores around it, wire events, render.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { NoTokenScreen } from './components/no-token-screen';
import { applyTheme, initialTheme, onSystemTheme, safeGet, saveTheme } from './lib/theme';
import { StudioProvider } from './stores/stores-context';
import { connectStudioEvents, createStudioStores, loadInitial } from './stores/studio-stores';
import { isViewId } from './stores/ui-store';
import { pickTransport } from './transport/pick-transport';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';
import './styles/forms.css';
import './styles/feedback.css';
import './styles/tables.css';
import './styles/views.css';
import './styles/keys.css';

const VIEW_KEY = 'mgw.studio.view';

async function boot(): Promise<void> {
  const container = document.getElementById('root');
  if (!container) throw new Error('#root is missing from index.html');
  const root = createRoot(container);
  const { theme, themeChosen } = initialTheme();
  applyTheme(theme);

  const choice = await pickTransport(window);
  if (choice.kind !== 'ready') {
    root.render(<NoTokenScreen {...(choice.kind === 'session-failed' ? { error: choice.message } : {})} />);
    return;
  }

  const { client } = choice;
  const savedView = safeGet(sessionStorage, VIEW_KEY);
  const stores = createStudioStores(client, { theme, themeChosen, ...(savedView && isViewId(savedView) ? { view: savedView } : {}) });
  connectStudioEvents(stores, client);
  // Keep the theme on <html> and remember explicit choices; keep the view across reloads.
  stores.ui.subscribe((state, previous) => {
    if (state.theme !== previous.theme) applyTheme(state.theme);
    if (state.themeChosen && state.theme !== previous.theme) saveTheme(state.theme);
    if (state.view !== previous.view) sessionStorage.setItem(VIEW_KEY, state.view);
  });
  onSystemTheme((next) => stores.ui.getState().followSystemTheme(next));
  void loadInitial(stores);

  root.render(
    <StrictMode>
      <StudioProvider stores={stores} mediaUrl={client.mediaUrl}>
        <App transport={client.kind === 'ipc' ? 'Desktop app' : 'Connected over loopback HTTP'} />
      </StudioProvider>
    </StrictMode>,
  );
}

void boot();
