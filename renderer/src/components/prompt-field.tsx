// The prompt textarea ("Prompt"); Ctrl+Enter / Cmd+Enter submits the surrounding form.
import { useId, type KeyboardEvent } from 'react';

interface Props {
  value: string;
  onChange(value: string): void;
  placeholder?: string;
  label?: string;
  rows?: number;
}

function submitOnModEnter(event: KeyboardEvent<HTMLTextAreaElement>) {
  if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return;
  event.preventDefault();
  event.currentTarget.form?.requestSubmit();
}

export function PromptField({ value, onChange, placeholder, label = 'Prompt', rows = 4 }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        value={value}
        placeholder={placeholder}
        aria-describedby={hintId}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={submitOnModEnter}
      />
      <span id={hintId} className="field-hint">
        Ctrl+Enter (⌘+Enter) to submit
      </span>
    </div>
  );
}
