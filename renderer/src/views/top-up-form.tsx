// An amount field plus a "Top up" button; used for the owner account and for each key.
import { useId, useState, type FormEvent } from 'react';

interface Props {
  busy?: boolean;
  label?: string;
  compact?: boolean;
  onTopUp(usd: string): Promise<boolean>;
}

export function TopUpForm({ busy = false, label = 'Amount (USD)', compact = false, onTopUp }: Props) {
  const id = useId();
  const [usd, setUsd] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!usd.trim() || busy) return;
    if (await onTopUp(usd.trim())) setUsd('');
  };
  return (
    <form className={compact ? 'inline-form' : 'form'} onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor={id} className={compact ? 'visually-hidden' : undefined}>
          {label}
        </label>
        <input id={id} type="number" inputMode="decimal" min="0" step="any" placeholder="10.00" value={usd} onChange={(e) => setUsd(e.target.value)} />
      </div>
      <button type="submit" className={`btn ${compact ? 'btn-small' : 'btn-primary'}`} disabled={busy || !usd.trim()}>
        Top up
      </button>
    </form>
  );
}
