// Create an API key: access type, optional starting balance/allowance, label.
import { useId, useState, type FormEvent } from 'react';
import type { AccessType } from '../../../shared/api-types';
import { ErrorMessage } from '../components/alert';
import { SelectField } from '../components/select-field';
import { amountProblem, UsdField } from '../components/usd-field';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

export const ACCESS_OPTIONS = [
  { value: 'free', label: 'free: turbo models, no charge' },
  { value: 'pro', label: 'pro: allowance, then balance' },
  { value: 'balance', label: 'balance: pays from its balance' },
];

export function KeyCreateForm() {
  const { keys } = useStores();
  const labelId = useId();
  const creating = useStore(keys, (s) => s.creating);
  const error = useStore(keys, (s) => s.createError);
  const [access, setAccess] = useState<AccessType>('balance');
  const [balance, setBalance] = useState('');
  const [allowance, setAllowance] = useState('');
  const [label, setLabel] = useState('');

  const invalid = amountProblem(balance) !== null || amountProblem(allowance) !== null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (creating || invalid) return;
    const ok = await keys.getState().create({
      access,
      ...(balance.trim() ? { balance_usd: balance.trim() } : {}),
      ...(allowance.trim() ? { allowance_usd: allowance.trim() } : {}),
      ...(label.trim() ? { label: label.trim() } : {}),
    });
    if (ok) {
      setBalance('');
      setAllowance('');
      setLabel('');
    }
  };

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label="Create a key">
      <h2>New key</h2>
      <SelectField label="Access" value={access} options={ACCESS_OPTIONS} onChange={(v) => setAccess(v as AccessType)} />
      <div className="row">
        <UsdField label="Balance (USD)" placeholder="optional" value={balance} onChange={setBalance} />
        <UsdField label="Allowance (USD)" placeholder="optional" value={allowance} onChange={setAllowance} />
      </div>
      <div className="field">
        <label htmlFor={labelId}>Label</label>
        <input id={labelId} type="text" placeholder="laptop, CI, ..." value={label} onChange={(e) => setLabel(e.target.value)} />
      </div>
      <ErrorMessage message={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={creating || invalid}>
          Create key
        </button>
      </div>
    </form>
  );
}
