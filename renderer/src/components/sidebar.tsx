// Left navigation between the views.
import { useStores } from '../stores/stores-context';
import { VIEWS, type ViewId } from '../stores/ui-store';
import { useStore } from '../stores/use-store';
import { Icon } from './icons';

export const VIEW_TITLES: Record<ViewId, string> = {
  models: 'Models',
  images: 'Images',
  edit: 'Edit',
  videos: 'Videos',
  billing: 'Billing',
  keys: 'Keys',
  providers: 'Providers',
  activity: 'Activity',
};

export function Sidebar({ transport }: { transport: string }) {
  const { ui } = useStores();
  const view = useStore(ui, (s) => s.view);
  const connected = useStore(ui, (s) => s.connected);
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <div>
          <div className="brand-name">Prompt studio</div>
          <div className="brand-sub">Media gateway</div>
        </div>
      </div>
      <nav aria-label="Views">
        <ul className="nav">
          {VIEWS.map((id) => (
            <li key={id}>
              <button
                type="button"
                className={`nav-item${id === view ? ' nav-active' : ''}`}
                aria-current={id === view ? 'page' : undefined}
                onClick={() => ui.getState().setView(id)}
              >
                <Icon name={id} />
                {VIEW_TITLES[id]}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {connected ? (
        <div className="sidebar-foot muted">{transport}</div>
      ) : (
        <div className="sidebar-foot sidebar-offline" role="status">
          Gateway unreachable, reconnecting…
        </div>
      )}
    </aside>
  );
}
