// "Use this model": ready-to-run curl, Python and JavaScript snippets for the model shown, with
// the gateway's real base URL (system.info) and a placeholder for the key, and a Copy button.
import { useEffect, useId, useMemo, useState } from 'react';
import type { ModelRecord } from '../../../shared/api-types';
import { buildModelSnippets, KEY_ENV, SNIPPET_LANGUAGES, type SnippetLanguage } from '../../../shared/model-snippets';
import { CopyButton } from '../components/copy-button';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

const TAB_LABELS: Record<SnippetLanguage, string> = { curl: 'curl', python: 'Python', javascript: 'JavaScript' };
const KEY_HINTS: Record<SnippetLanguage, string> = {
  curl: `export ${KEY_ENV}=<your key>, then paste into sh or bash.`,
  python: `pip install openai; set ${KEY_ENV} to your key.`,
  javascript: `npm install openai; set ${KEY_ENV} to your key.`,
};

export function ModelSnippets({ model }: { model: ModelRecord }) {
  const { keys } = useStores();
  const apiBaseUrl = useStore(keys, (s) => s.apiBaseUrl);
  const infoLoaded = useStore(keys, (s) => s.infoLoaded);
  const [language, setLanguage] = useState<SnippetLanguage>('curl');
  const id = useId();

  useEffect(() => {
    void keys.getState().loadInfo();
  }, [keys]);

  const snippets = useMemo(() => (apiBaseUrl ? buildModelSnippets(model, apiBaseUrl) : null), [model, apiBaseUrl]);

  return (
    <section className="model-snippets" aria-label="Use this model">
      <h3>Use this model</h3>
      {snippets ? (
        <>
          <div className="tabs" role="tablist" aria-label="Snippet language">
            {SNIPPET_LANGUAGES.map((lang) => (
              <button
                key={lang}
                type="button"
                role="tab"
                id={`${id}-tab-${lang}`}
                aria-selected={lang === language}
                aria-controls={`${id}-panel`}
                className={`tab ${lang === language ? 'tab-active' : ''}`}
                onClick={() => setLanguage(lang)}
              >
                {TAB_LABELS[lang]}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${language}`} className="snippet-panel">
            <div className="snippet-panel-head">
              <p className="muted">{KEY_HINTS[language]}</p>
              <CopyButton key={`${model.id}-${language}`} text={snippets[language]} />
            </div>
            <pre className="snippet-code" data-testid="model-snippet">
              {snippets[language]}
            </pre>
          </div>
        </>
      ) : (
        <p className="muted">{infoLoaded ? 'The HTTP API is not running, so there is no URL to call.' : 'Reading the API address…'}</p>
      )}
    </section>
  );
}
