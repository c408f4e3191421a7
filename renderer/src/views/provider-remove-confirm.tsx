// Asked before removing a provider that still serves catalog models (typically what "Discover
// models" added): one confirmation removes the provider and those models together, instead of a
// refusal that points to the CLI.
interface Props {
  id: string;
  models: string[];
  onConfirm(): void;
  onCancel(): void;
}

export function ProviderRemoveConfirm({ id, models, onConfirm, onCancel }: Props) {
  const count = `${models.length} model${models.length === 1 ? '' : 's'}`;
  return (
    <div className="confirm" role="group" aria-label={`Remove ${id}?`}>
      <p>
        <strong>{id}</strong> serves {count} in the catalog: <span className="mono">{models.join(', ')}</span>. Removing the
        provider removes {models.length === 1 ? 'it' : 'them'} too; requests naming {models.length === 1 ? 'it' : 'them'} will
        be refused.
      </p>
      <div className="form-actions">
        <button type="button" className="btn btn-small btn-danger" onClick={onConfirm}>
          Remove provider and {count}
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
