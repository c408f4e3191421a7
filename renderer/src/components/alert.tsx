// Error and warning text, announced to screen readers; errors always read "code: message".
import type { ReactNode } from 'react';

export function ErrorMessage({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="alert alert-error" role="alert">
      {message}
    </p>
  );
}

/** A problem with the form as filled in (too many files, a file too large), announced at once. */
export function WarningMessage({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="alert alert-warning" role="alert">
      {message}
    </p>
  );
}

export function Hint({ children }: { children: ReactNode }) {
  return <p className="hint">{children}</p>;
}
