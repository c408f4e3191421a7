// The token of a key just created: shown once, with Copy and a ready curl call.
import { CopyButton } from '../components/copy-button';
import type { CreatedKey } from '../stores/keys-store';

export function curlSnippet(apiBaseUrl: string, token: string): string {
  return `curl ${apiBaseUrl}/images/generations -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" -d '{"model":"local-image","prompt":"a red fox"}'`;
}

export function NewKeyPanel({ created, apiBaseUrl, onDismiss }: { created: CreatedKey; apiBaseUrl: string | null; onDismiss(): void }) {
  const snippet = apiBaseUrl ? curlSnippet(apiBaseUrl, created.token) : null;
  return (
    <section className="card new-key" aria-label="New key token">
      <div className="section-head">
        <h2>Key created: {created.key.label || created.key.id}</h2>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDismiss}>
          Done
        </button>
      </div>
      <p className="alert alert-warning">This token is shown only now. Copy it and store it safely.</p>
      <div className="token-row">
        <code className="token" id="new-key-token" data-testid="new-key-token">
          {created.token}
        </code>
        <CopyButton text={created.token} />
      </div>
      <h3>Try it</h3>
      {snippet ? (
        <div className="snippet">
          <pre data-testid="curl-snippet">{snippet}</pre>
          <CopyButton text={snippet} label="Copy curl" />
        </div>
      ) : (
        <p className="muted">The HTTP API is not running, so there is no URL to call.</p>
      )}
    </section>
  );
}
