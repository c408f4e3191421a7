// API keys: create (token shown once), list with balances, revoke, top up, change access, and
// per key a usage panel.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { KeyCreateForm } from './key-create-form';
import { KeyTableRow } from './key-row';
import { NewKeyPanel } from './new-key-panel';

export function KeysView() {
  const { keys } = useStores();
  const rows = useStore(keys, (s) => s.keys);
  const loaded = useStore(keys, (s) => s.loaded);
  const error = useStore(keys, (s) => s.error);
  const created = useStore(keys, (s) => s.created);
  const apiBaseUrl = useStore(keys, (s) => s.apiBaseUrl);
  const ownerKeyId = useStore(keys, (s) => s.ownerKeyId);

  useEffect(() => {
    void keys.getState().load();
    // An open usage panel reloads on every event concerning its key: not while it is off screen.
    return () => keys.getState().closeUsage();
  }, [keys]);

  return (
    <div className="view">
      <div className="split">
        <KeyCreateForm />
        {created ? (
          <NewKeyPanel created={created} apiBaseUrl={apiBaseUrl} onDismiss={() => keys.getState().dismissCreated()} />
        ) : (
          <div className="card placeholder">A new key's token is shown here once, with a ready curl call.</div>
        )}
      </div>
      <ErrorMessage message={error} />
      <section className="card table-card" aria-label="Keys">
        <h2>Keys</h2>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Access</th>
              <th scope="col">Hint</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">Available</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <KeyTableRow key={row.id} row={row} isOwner={row.id === ownerKeyId} />
            ))}
          </tbody>
        </table>
        {loaded && rows.length === 0 ? <p className="empty">No keys yet.</p> : null}
      </section>
    </div>
  );
}
