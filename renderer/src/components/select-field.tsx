// A labelled <select>; options are value/label pairs.
import { useId } from 'react';

export interface Option {
  value: string;
  label: string;
}

interface Props {
  label: string;
  value: string;
  options: readonly Option[];
  onChange(value: string): void;
  disabled?: boolean;
  /** A line under the select saying what the current choice does. */
  hint?: string | null;
}

export function SelectField({ label, value, options, onChange, disabled, hint }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} aria-describedby={hint ? hintId : undefined} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint ? (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export const toOptions = (values: readonly (string | number)[], suffix = ''): Option[] =>
  values.map((v) => ({ value: String(v), label: `${v}${suffix}` }));
