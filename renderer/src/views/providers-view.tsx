// Upstream providers: add one (kind, id, base URL, key), then test it, discover its models or
// remove it. Keys are never shown: the list only says where each key comes from.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { ProviderAddForm } from './provider-add-form';
import { ProviderRow } from './provider-row';

const HEALTH_REFRESH_MS = 5_000;

export function ProvidersView() {
  const { providers } = useStores();
  const rows = useStore(providers, (s) => s.providers);
  const loaded = useStore(providers, (s) => s.loaded);
  const error = useStore(providers, (s) => s.error);

  // Health changes with every routed request: read again while the view is open.
  useEffect(() => {
    void providers.getState().load();
    const timer = setInterval(() => void providers.getState().load(), HEALTH_REFRESH_MS);
    return () => clearInterval(timer);
  }, [providers]);

  return (
    <div className="view">
      <ProviderAddForm />
      <ErrorMessage message={error} />
      <section className="card table-card" aria-label="Providers">
        <h2>Providers</h2>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Kind</th>
              <th scope="col">Base URL</th>
              <th scope="col">Key</th>
              <th scope="col">Health</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((provider) => (
              <ProviderRow key={provider.id} provider={provider} />
            ))}
          </tbody>
        </table>
        {loaded && rows.length === 0 ? <p className="empty">No providers yet: the catalog serves the built-in local models only.</p> : null}
        {!loaded ? <p className="empty">Loading the providers…</p> : null}
      </section>
    </div>
  );
}
