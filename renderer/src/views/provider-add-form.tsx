// Add an upstream provider: kind, id, base URL, and the API key (or the name of the environment
// variable holding it). The key lives only in this form until it is sent, then the field is cleared.
import { useState, type FormEvent } from 'react';
import { PROVIDER_KIND_INFO } from '../../../shared/provider-kinds';
import type { StudioInput } from '../../../shared/studio-contract';
import { ErrorMessage } from '../components/alert';
import { SelectField } from '../components/select-field';
import { TextField } from '../components/text-field';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

type Kind = StudioInput<'providers.add'>['kind'];

const KIND_OPTIONS = [
  { value: 'openai', label: 'openai: OpenAI-compatible API' },
  { value: 'fal', label: 'fal: fal.ai queue' },
  { value: 'replicate', label: 'replicate: Replicate' },
  { value: 'gemini', label: 'gemini: Google Gemini API (images, Veo)' },
  { value: 'runway', label: 'runway: Runway' },
  { value: 'comfyui', label: 'comfyui: ComfyUI on your GPU' },
  { value: 'a1111', label: 'a1111: AUTOMATIC1111 or Forge (started with --api)' },
  { value: 'sdcpp', label: 'sdcpp: stable-diffusion.cpp server' },
];

const KIND_HINTS: Record<Kind, { baseUrl: string; baseUrlHint: string; env: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', baseUrlHint: 'The API root, ending in /v1.', env: 'OPENAI_API_KEY' },
  fal: { baseUrl: 'https://queue.fal.run', baseUrlHint: 'Leave empty for the default, https://queue.fal.run.', env: 'FAL_KEY' },
  replicate: { baseUrl: 'https://api.replicate.com', baseUrlHint: 'Leave empty for the default, https://api.replicate.com.', env: 'REPLICATE_API_TOKEN' },
  gemini: { baseUrl: 'https://generativelanguage.googleapis.com', baseUrlHint: 'Leave empty for the default, https://generativelanguage.googleapis.com.', env: 'GEMINI_API_KEY' },
  runway: { baseUrl: 'https://api.dev.runwayml.com', baseUrlHint: 'Leave empty for the default, https://api.dev.runwayml.com.', env: 'RUNWAYML_API_SECRET' },
  comfyui: { baseUrl: 'http://127.0.0.1:8188', baseUrlHint: 'Leave empty for the default, http://127.0.0.1:8188.', env: '' },
  a1111: { baseUrl: 'http://127.0.0.1:7860', baseUrlHint: 'Leave empty for the default, http://127.0.0.1:7860.', env: 'A1111_API_AUTH' },
  sdcpp: { baseUrl: 'http://127.0.0.1:1234', baseUrlHint: 'Leave empty for the default, http://127.0.0.1:1234.', env: '' },
};

export function ProviderAddForm() {
  const { providers } = useStores();
  const adding = useStore(providers, (s) => s.adding);
  const error = useStore(providers, (s) => s.addError);
  const [kind, setKind] = useState<Kind>('openai');
  const [id, setId] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [apiKeyEnv, setApiKeyEnv] = useState('');
  const [timeout, setTimeoutSeconds] = useState('');
  const hints = KIND_HINTS[kind];
  const keyKind = PROVIDER_KIND_INFO[kind].key;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (adding) return;
    const ok = await providers.getState().add({
      id: id.trim(),
      kind,
      ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
      // A key of spaces is sent (and refused as empty), never taken as "no key".
      ...(apiKey !== '' ? { api_key: apiKey.trim() } : {}),
      ...(apiKeyEnv.trim() ? { api_key_env: apiKeyEnv.trim() } : {}),
      ...(timeout.trim() ? { timeout_seconds: Number(timeout.trim()) } : {}),
    });
    if (ok) {
      setApiKey('');
      setApiKeyEnv('');
      setId('');
      setBaseUrl('');
      setTimeoutSeconds('');
    }
  };

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label="Add a provider">
      <div>
        <h2>Add a provider</h2>
        <p className="muted form-lead">
          Keys are encrypted by the OS keychain (desktop app) or kept in an owner-only file (headless), and never shown again.
        </p>
      </div>
      <div className="row">
        <SelectField label="Kind" value={kind} options={KIND_OPTIONS} onChange={(v) => setKind(v as Kind)} />
        <TextField label="Provider id" value={id} onChange={setId} placeholder={kind} hint="Models are named <id>/<model>." />
        <TextField label="Base URL" value={baseUrl} onChange={setBaseUrl} placeholder={hints.baseUrl} hint={hints.baseUrlHint} />
      </div>
      {keyKind !== null && (
      <div className="row">
        <TextField
          label={keyKind === 'basic-auth' ? 'User and password (USER:PASS)' : 'API key'}
          type="password"
          value={apiKey}
          onChange={setApiKey}
          disabled={apiKeyEnv.trim() !== ''}
          hint={`${PROVIDER_KIND_INFO[kind].keyRequired ? 'Required (or its environment variable). ' : ''}Sent once to the gateway, then cleared from this form.`}
        />
        <TextField
          label="API key environment variable"
          value={apiKeyEnv}
          onChange={setApiKeyEnv}
          placeholder={hints.env}
          disabled={apiKey !== ''}
          hint="Or read the key from this variable of the gateway's environment."
        />
      </div>
      )}
      <div className="row">
        <TextField
          label="Timeout (seconds)"
          value={timeout}
          onChange={setTimeoutSeconds}
          placeholder={String(PROVIDER_KIND_INFO[kind].defaultTimeoutMs / 1000)}
          hint="The longest one generation may take here; a local engine on a slow GPU may need minutes."
        />
      </div>
      <ErrorMessage message={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={adding}>
          Add provider
        </button>
        <span className="muted small">Give the key or its variable; leave both empty if the provider needs no key.</span>
      </div>
    </form>
  );
}
