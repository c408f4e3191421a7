// Error and warning text, announced to screen readers; errors always read "code: message".
import type { ReactNode } from 'react';

type MessageProps = { message: string | null | undefined };

function Alert({ message, tone }: MessageProps & { tone: 'error' | 'warning' }) {
  if (!message) return null;
  return (
    <p className={`alert alert-${tone}`} role="alert">
      {message}
    </p>
  );
}

export const ErrorMessage = ({ message }: MessageProps) => <Alert message={message} tone="error" />;

/** A problem with the form as filled in (too many files, a file too large), announced at once. */
export const WarningMessage = ({ message }: MessageProps) => <Alert message={message} tone="warning" />;

export function Hint({ children }: { children: ReactNode }) {
  return <p className="hint">{children}</p>;
}
