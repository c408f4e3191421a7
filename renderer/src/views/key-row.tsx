// One key in the Keys table: label, access, hint, status, balance and the row actions; below it,
// when open, the access form, the last error of a row action and the usage panel.
import { useState } from 'react';
import { ErrorMessage } from '../components/alert';
import { formatTime, formatUsd } from '../lib/format';
import type { KeyRow } from '../stores/keys-store';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { KeyAccessForm } from './key-access-form';
import { KeyUsagePanel } from './key-usage-panel';
import { TopUpForm } from './top-up-form';

const COLUMNS = 6;

export function KeyTableRow({ row, isOwner }: { row: KeyRow; isOwner: boolean }) {
  const { keys } = useStores();
  const error = useStore(keys, (s) => (s.actionError?.id === row.id ? s.actionError.message : null));
  const usageOpen = useStore(keys, (s) => s.usageKeyId === row.id);
  const [editing, setEditing] = useState(false);
  const revoked = row.revoked_at !== null;
  // The studio's own key keeps its access, like it cannot be revoked from here.
  const editable = !revoked && !isOwner;
  const accessOpen = editing && editable;
  const name = row.label || row.id;
  const open = accessOpen || usageOpen || error !== null;
  const classes = [revoked ? 'row-muted' : '', open ? 'row-open' : ''].filter(Boolean).join(' ');

  const toggleUsage = () => {
    if (usageOpen) keys.getState().closeUsage();
    else void keys.getState().openUsage(row.id);
  };

  return (
    <>
      <tr className={classes || undefined}>
        <td>
          <strong>{row.label || '—'}</strong>
          <div className="muted mono">{row.id}</div>
        </td>
        <td>
          <span className={`badge ${row.access === 'free' ? '' : 'badge-accent'}`} data-testid="key-access">
            {row.access}
          </span>
          {isOwner ? (
            <div className="muted small" title="The studio's own key">
              studio
            </div>
          ) : null}
          {editable ? (
            <div>
              <button type="button" className="link-button link-small" aria-expanded={accessOpen} onClick={() => setEditing(!editing)}>
                Change access
              </button>
            </div>
          ) : null}
        </td>
        <td className="mono">{row.token_hint}</td>
        <td>
          {revoked ? <span className="badge badge-danger">revoked</span> : <span className="badge badge-success">active</span>}
          <div className="muted small nowrap">{formatTime(revoked ? row.revoked_at : row.created_at)}</div>
        </td>
        <td className="num">
          {formatUsd(row.balance.available_usd)}
          <div className="muted small nowrap">balance {formatUsd(row.balance.balance_usd)}</div>
          <div className="muted small nowrap">allowance {formatUsd(row.balance.allowance_remaining_usd)}</div>
        </td>
        <td>
          <div className="row-actions key-actions">
            {revoked ? null : (
              <TopUpForm compact label={`Top up ${name} (USD)`} onTopUp={(usd) => keys.getState().topUp(row.id, usd)} />
            )}
            <button type="button" className="btn btn-small" aria-expanded={usageOpen} onClick={toggleUsage}>
              Usage
            </button>
            {editable ? (
              <button type="button" className="btn btn-small btn-danger" onClick={() => void keys.getState().revoke(row.id)}>
                Revoke
              </button>
            ) : null}
          </div>
        </td>
      </tr>
      {open ? (
        <tr className="key-panel-row">
          <td colSpan={COLUMNS}>
            <div className="key-panel">
              {accessOpen ? <KeyAccessForm row={row} onDone={() => setEditing(false)} /> : null}
              <ErrorMessage message={error} />
              {usageOpen ? <KeyUsagePanel id={row.id} name={name} /> : null}
            </div>
          </td>
        </tr>
      ) : null}
    </>
  );
}
