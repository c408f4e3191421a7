// Removing a model from the catalog (as `mgw models remove` does), asked once more before it
// happens: local apps naming the model get 400 from then on, until a `models put` adds it back.
import { useEffect, useState } from 'react';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

export function ModelRemove({ id }: { id: string }) {
  const { catalog } = useStores();
  const removing = useStore(catalog, (s) => s.removing === id);
  const error = useStore(catalog, (s) => s.removeError);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => () => catalog.getState().clearRemoveError(), [catalog]);

  if (!confirming) {
    return (
      <div className="form-actions">
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setConfirming(true)}>
          Remove from catalog…
        </button>
      </div>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={`Remove ${id}?`}>
      <p>
        Remove <strong>{id}</strong> from the catalog? Requests naming it will be refused until
        <span className="mono"> mgw models put</span> adds it back.
      </p>
      <ErrorMessage message={error} />
      <div className="form-actions">
        <button type="button" className="btn btn-small btn-danger" disabled={removing} onClick={() => void catalog.getState().remove(id)}>
          {removing ? 'Removing…' : `Remove ${id}`}
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}
