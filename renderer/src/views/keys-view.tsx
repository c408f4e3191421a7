// API keys: create (token shown once), list with balances, revoke, top up.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { formatTime, formatUsd } from '../lib/format';
import type { KeyRow } from '../stores/keys-store';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { KeyCreateForm } from './key-create-form';
import { NewKeyPanel } from './new-key-panel';
import { TopUpForm } from './top-up-form';

function KeyTableRow({ row, error, isOwner }: { row: KeyRow; error: string | null; isOwner: boolean }) {
  const { keys } = useStores();
  const revoked = row.revoked_at !== null;
  return (
    <>
      <tr className={revoked ? 'row-muted' : undefined}>
        <td>
          <strong>{row.label || '—'}</strong>
          <div className="muted mono">{row.id}</div>
        </td>
        <td>
          <span className={`badge ${row.access === 'free' ? '' : 'badge-accent'}`}>{row.access}</span>
          {isOwner ? (
            <div className="muted small" title="The studio's own key">studio</div>
          ) : null}
        </td>
        <td className="mono">{row.token_hint}</td>
        <td>
          {revoked ? <span className="badge badge-danger">revoked</span> : <span className="badge badge-success">active</span>}
          <div className="muted small nowrap">{formatTime(revoked ? row.revoked_at : row.created_at)}</div>
        </td>
        <td className="num">
          {formatUsd(row.balance.available_usd)}
          <div className="muted small">balance {formatUsd(row.balance.balance_usd)}</div>
          <div className="muted small">allowance {formatUsd(row.balance.allowance_remaining_usd)}</div>
        </td>
        <td>
          {revoked ? null : (
            <div className="row-actions">
              <TopUpForm compact label={`Top up ${row.label || row.id} (USD)`} onTopUp={(usd) => keys.getState().topUp(row.id, usd)} />
              {isOwner ? null : (
                <button type="button" className="btn btn-small btn-danger" onClick={() => void keys.getState().revoke(row.id)}>
                  Revoke
                </button>
              )}
            </div>
          )}
        </td>
      </tr>
      {error ? (
        <tr>
          <td colSpan={6}>
            <ErrorMessage message={error} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

export function KeysView() {
  const { keys } = useStores();
  const rows = useStore(keys, (s) => s.keys);
  const loaded = useStore(keys, (s) => s.loaded);
  const error = useStore(keys, (s) => s.error);
  const created = useStore(keys, (s) => s.created);
  const apiBaseUrl = useStore(keys, (s) => s.apiBaseUrl);
  const actionError = useStore(keys, (s) => s.actionError);
  const ownerKeyId = useStore(keys, (s) => s.ownerKeyId);

  useEffect(() => {
    void keys.getState().load();
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
              <KeyTableRow
                key={row.id}
                row={row}
                isOwner={row.id === ownerKeyId}
                error={actionError?.id === row.id ? actionError.message : null}
              />
            ))}
          </tbody>
        </table>
        {loaded && rows.length === 0 ? <p className="empty">No keys yet.</p> : null}
      </section>
    </div>
  );
}
