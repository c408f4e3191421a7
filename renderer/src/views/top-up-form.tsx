// An amount field plus a "Top up" button; used for the owner account and for each key.
import { useState, type FormEvent } from 'react';
import { amountProblem, UsdField } from '../components/usd-field';

interface Props {
  busy?: boolean;
  label?: string;
  compact?: boolean;
  onTopUp(usd: string): Promise<boolean>;
}

export function TopUpForm({ busy = false, label = 'Amount (USD)', compact = false, onTopUp }: Props) {
  const [usd, setUsd] = useState('');
  const invalid = amountProblem(usd) !== null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!usd.trim() || busy || invalid) return;
    if (await onTopUp(usd.trim())) setUsd('');
  };
  return (
    <form className={compact ? 'inline-form' : 'form'} onSubmit={(e) => void submit(e)}>
      <UsdField label={label} hideLabel={compact} placeholder="10.00" value={usd} onChange={setUsd} />
      <button type="submit" className={`btn ${compact ? 'btn-small' : 'btn-primary'}`} disabled={busy || !usd.trim() || invalid}>
        Top up
      </button>
    </form>
  );
}
