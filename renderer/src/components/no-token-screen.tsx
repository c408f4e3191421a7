// Shown when the page has neither the Electron bridge nor an owner token.
export function NoTokenScreen({ error }: { error?: string }) {
  return (
    <main className="center-screen">
      <div className="card notice">
        <span className="brand-mark brand-mark-lg" aria-hidden="true" />
        <h1>Prompt studio</h1>
        <p>
          Open the studio URL that <code>mgw serve</code> printed (it carries the owner token).
        </p>
        <p className="muted">
          It looks like <code>http://127.0.0.1:8787/studio/#token=…</code>. The token stays in this tab only.
        </p>
        {error ? (
          <p className="alert alert-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </main>
  );
}
