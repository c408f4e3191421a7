// Header: the current view's title, the available balance and the theme toggle.
import { formatUsd } from '../lib/format';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { Icon } from './icons';
import { VIEW_TITLES } from './sidebar';

const SUBTITLES = {
  models: 'The live catalog: prices, limits and capabilities',
  images: 'Generate images from a prompt',
  edit: 'Edit or combine reference images',
  videos: 'Asynchronous video jobs with billing holds',
  billing: 'Balance, holds, spend and the ledger',
  keys: 'API keys for local apps and scripts',
  providers: 'Cloud services and local engines behind the catalog, and how they are faring',
  activity: 'Recent requests through the gateway',
} as const;

export function TopBar() {
  const { ui, billing } = useStores();
  const view = useStore(ui, (s) => s.view);
  const theme = useStore(ui, (s) => s.theme);
  const available = useStore(billing, (s) => s.summary?.balance.available_usd ?? null);
  return (
    <header className="topbar">
      <div>
        <h1>{VIEW_TITLES[view]}</h1>
        <p className="muted">{SUBTITLES[view]}</p>
      </div>
      <div className="topbar-actions">
        <button type="button" className="balance-chip" onClick={() => ui.getState().setView('billing')} aria-label={`Available balance ${formatUsd(available)}, open Billing`}>
          <span className="muted">Available</span>
          <strong data-testid="header-balance">{formatUsd(available)}</strong>
        </button>
        <button type="button" className="btn btn-ghost" onClick={() => ui.getState().toggleTheme()}>
          <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
          {theme === 'dark' ? 'Light mode' : 'Dark mode'}
        </button>
      </div>
    </header>
  );
}
