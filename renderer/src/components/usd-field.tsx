// A USD amount field. A number input took "1e2" as valid and the gateway refused it with its
// schema regex; this one is text with a decimal keypad, checked as typed against the gateway's
// own rule (shared/usd-amount.ts), so a refusal is explained before anything is sent.
import { useId } from 'react';
import { usdAmountProblem } from '../../../shared/usd-amount';

/** The problem with a typed amount, as a sentence; null when empty (optional) or valid. */
export function amountProblem(value: string): string | null {
  if (!value.trim()) return null;
  const problem = usdAmountProblem(value);
  return problem ? `The amount ${problem}.` : null;
}

interface Props {
  label: string;
  value: string;
  onChange(value: string): void;
  placeholder?: string;
  hideLabel?: boolean;
  hint?: string;
}

export function UsdField({ label, value, onChange, placeholder, hideLabel = false, hint }: Props) {
  const id = useId();
  const problem = amountProblem(value);
  const describedBy = [problem ? `${id}-problem` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <input
        id={id}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        placeholder={placeholder}
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint ? (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      ) : null}
      {problem ? (
        <span id={`${id}-problem`} className="field-problem" role="alert">
          {problem}
        </span>
      ) : null}
    </div>
  );
}
