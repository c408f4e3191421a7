// A labelled one-line text input with an optional hint (provider forms: ids, URLs, keys).
import { useId } from 'react';

export function TextField(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  type?: 'text' | 'password';
  placeholder?: string;
  hint?: string;
  disabled?: boolean;
}) {
  const { label, value, onChange, type = 'text', placeholder, hint, disabled } = props;
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        autoComplete={type === 'password' ? 'new-password' : 'off'}
        spellCheck={false}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint ? (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}
