// Change a key's access type and, for pro, its allowance per period (keys.update). The row
// shows the key and balance the call returns.
import { useState, type FormEvent } from 'react';
import type { AccessType } from '../../../shared/api-types';
import { SelectField } from '../components/select-field';
import { amountProblem, UsdField } from '../components/usd-field';
import type { KeyRow } from '../stores/keys-store';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { ACCESS_OPTIONS } from './key-create-form';

export function KeyAccessForm({ row, onDone }: { row: KeyRow; onDone(): void }) {
  const { keys } = useStores();
  const saving = useStore(keys, (s) => s.saving[row.id] === true);
  const [access, setAccess] = useState<AccessType>(row.access);
  const [allowance, setAllowance] = useState('');
  const allowanceUsd = access === 'pro' ? allowance.trim() : '';
  const unchanged = access === row.access && !allowanceUsd;
  const invalid = amountProblem(allowanceUsd) !== null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving || unchanged || invalid) return;
    const ok = await keys.getState().update(row.id, { access, ...(allowanceUsd ? { allowance_usd: allowanceUsd } : {}) });
    if (ok) onDone();
  };

  return (
    <form className="key-access" aria-label={`Access of ${row.label || row.id}`} onSubmit={(e) => void submit(e)}>
      <SelectField label="Access" value={access} options={ACCESS_OPTIONS} onChange={(v) => setAccess(v as AccessType)} />
      {access === 'pro' ? (
        <UsdField
          label="Allowance per period (USD)"
          placeholder="5.00"
          value={allowance}
          onChange={setAllowance}
          hint="Spent first each period, then the balance. Empty keeps the current allowance."
        />
      ) : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-small btn-primary" disabled={saving || unchanged || invalid}>
          Save access
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
