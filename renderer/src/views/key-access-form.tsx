// Change a key's access type and, for pro, its allowance per period (keys.update). The row
// shows the key and balance the call returns.
import { useId, useState, type FormEvent } from 'react';
import type { AccessType } from '../../../shared/api-types';
import { SelectField } from '../components/select-field';
import type { KeyRow } from '../stores/keys-store';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { ACCESS_OPTIONS } from './key-create-form';

export function KeyAccessForm({ row, onDone }: { row: KeyRow; onDone(): void }) {
  const { keys } = useStores();
  const allowanceId = useId();
  const hintId = useId();
  const saving = useStore(keys, (s) => s.saving[row.id] === true);
  const [access, setAccess] = useState<AccessType>(row.access);
  const [allowance, setAllowance] = useState('');
  const allowanceUsd = access === 'pro' ? allowance.trim() : '';
  const unchanged = access === row.access && !allowanceUsd;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving || unchanged) return;
    const ok = await keys.getState().update(row.id, { access, ...(allowanceUsd ? { allowance_usd: allowanceUsd } : {}) });
    if (ok) onDone();
  };

  return (
    <form className="key-access" aria-label={`Access of ${row.label || row.id}`} onSubmit={(e) => void submit(e)}>
      <SelectField label="Access" value={access} options={ACCESS_OPTIONS} onChange={(v) => setAccess(v as AccessType)} />
      {access === 'pro' ? (
        <div className="field">
          <label htmlFor={allowanceId}>Allowance per period (USD)</label>
          <input
            id={allowanceId}
            type="text"
            inputMode="decimal"
            autoComplete="off"
            placeholder="5.00"
            aria-describedby={hintId}
            value={allowance}
            onChange={(e) => setAllowance(e.target.value)}
          />
          <span id={hintId} className="field-hint">
            Spent first each period, then the balance. Empty keeps the current allowance.
          </span>
        </div>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-small btn-primary" disabled={saving || unchanged}>
          Save access
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
