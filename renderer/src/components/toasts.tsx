// Transient notices (bottom right), dismissed after a few seconds or by hand.
import { useEffect } from 'react';
import { useStores } from '../stores/stores-context';
import type { Toast } from '../stores/ui-store';
import { useStore } from '../stores/use-store';

function ToastItem({ toast }: { toast: Toast }) {
  const { ui } = useStores();
  useEffect(() => {
    const timer = setTimeout(() => ui.getState().dismiss(toast.id), toast.kind === 'error' ? 8000 : 4000);
    return () => clearTimeout(timer);
  }, [ui, toast]);
  return (
    <li className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
      <span>{toast.text}</span>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => ui.getState().dismiss(toast.id)}>
        Dismiss
      </button>
    </li>
  );
}

export function Toasts() {
  const { ui } = useStores();
  const toasts = useStore(ui, (s) => s.toasts);
  return (
    <ul className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </ul>
  );
}
