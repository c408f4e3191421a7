// Change a provider's base URL or key in place (providers.update, as `mgw providers update`):
// only what differs from the provider is sent, an empty key field keeps the stored key, and its
// kind and the models it serves stay. The key lives only in this form until it is sent.
import { useState, type FormEvent } from 'react';
import { PROVIDER_KIND_INFO } from '../../../shared/provider-kinds';
import type { ProviderInfo, StudioInput } from '../../../shared/studio-contract';
import { TextField } from '../components/text-field';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

interface Props {
  provider: ProviderInfo;
  onDone(): void;
}

const envOf = (keySource: string): string => (keySource.startsWith('env:') ? keySource.slice(4) : '');

export function ProviderEditForm({ provider, onDone }: Props) {
  const { providers, ui } = useStores();
  const saving = useStore(providers, (s) => s.pending[provider.id] === 'update');
  const [baseUrl, setBaseUrl] = useState(provider.base_url);
  const [apiKey, setApiKey] = useState('');
  const [apiKeyEnv, setApiKeyEnv] = useState(envOf(provider.key_source));
  const [timeout, setTimeoutSeconds] = useState(provider.timeout_seconds === null ? '' : String(provider.timeout_seconds));
  const takesKey = PROVIDER_KIND_INFO[provider.kind].key !== null;
  const timeoutNow = provider.timeout_seconds === null ? '' : String(provider.timeout_seconds);

  const changes: Omit<StudioInput<'providers.update'>, 'id'> = {
    ...(baseUrl.trim() !== provider.base_url ? { base_url: baseUrl.trim() } : {}),
    // A key of spaces is sent (and refused as empty) rather than silently kept.
    ...(apiKey !== '' ? { api_key: apiKey.trim() } : {}),
    ...(apiKey === '' && apiKeyEnv.trim() !== '' && apiKeyEnv.trim() !== envOf(provider.key_source) ? { api_key_env: apiKeyEnv.trim() } : {}),
    // Empty goes back to the kind's default; anything else is sent as typed (the gateway checks it).
    ...(timeout.trim() !== timeoutNow ? { timeout_seconds: timeout.trim() === '' ? null : Number(timeout.trim()) } : {}),
  };
  const changed = Object.keys(changes).length > 0;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving || !changed) return;
    if (await providers.getState().update({ id: provider.id, ...changes })) {
      ui.getState().notify(`Provider ${provider.id} updated.`);
      onDone();
    }
  };

  return (
    <form className="form provider-edit" aria-label={`Edit ${provider.id}`} onSubmit={(e) => void submit(e)}>
      <div className="row">
        <TextField label="Base URL" value={baseUrl} onChange={setBaseUrl} hint="The API root upstream paths are appended to." />
        {takesKey ? (
          <>
        <TextField
          label="New API key"
          type="password"
          value={apiKey}
          onChange={setApiKey}
          placeholder={provider.key_source === 'stored' ? 'unchanged' : ''}
          hint="Leave empty to keep the current key; a key replaces a variable."
        />
        <TextField
          label="API key environment variable"
          value={apiKeyEnv}
          onChange={setApiKeyEnv}
          disabled={apiKey !== ''}
          hint="Or read the key from this variable (a stored key is then deleted)."
        />
          </>
        ) : null}
        <TextField
          label="Timeout (seconds)"
          value={timeout}
          onChange={setTimeoutSeconds}
          placeholder={`default ${PROVIDER_KIND_INFO[provider.kind].defaultTimeoutMs / 1000}`}
          hint="The longest one generation may take; empty for the default."
        />
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn-small btn-primary" disabled={saving || !changed}>
          Save changes
        </button>
        <button type="button" className="btn btn-small btn-ghost" disabled={saving} onClick={onDone}>
          Cancel
        </button>
        {changed ? null : <span className="muted small">Nothing changed yet.</span>}
      </div>
    </form>
  );
}
