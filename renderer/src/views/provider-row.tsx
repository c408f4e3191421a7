// One configured provider: its settings, the Test / Discover / Edit / Remove buttons, and below it
// the edit form, the last connection test, the last discovery or the last error.
import { useMemo, useState } from 'react';
import { describeHealthState, type ProviderHealth } from '../../../shared/provider-health';
import type { ProviderInfo } from '../../../shared/studio-contract';
import { ErrorMessage } from '../components/alert';
import { formatTime } from '../lib/format';
import type { ConnectionCheck, Discovery } from '../stores/providers-store';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { WorkflowModelForm } from './workflow-model-form';
import { ProviderEditForm } from './provider-edit-form';
import { ProviderRemoveConfirm } from './provider-remove-confirm';

const COLUMNS = 6;

const HEALTH_BADGE = { healthy: 'badge-success', failing: 'badge-warning', skipped: 'badge-danger', unknown: '' } as const;

/** Its breaker's state, recent latency and last failure, as the gateway saw them routing requests. */
function HealthCell({ health }: { health: ProviderHealth | undefined }) {
  return (
    <td aria-label="Health">
      <span className={`badge ${HEALTH_BADGE[health?.state ?? 'unknown']}`}>{describeHealthState(health)}</span>
      {health?.latency_ms != null ? <div className="muted small">{health.latency_ms} ms recently</div> : null}
      {health?.last_error ? (
        <div className={`small ${health.state === 'healthy' ? 'muted' : 'key-problem'}`} role="note">
          {health.state === 'healthy' ? 'Last error (it has served since): ' : ''}
          {health.last_error}
        </div>
      ) : null}
    </td>
  );
}

/** What a running row action is doing: a test or a discovery can take up to the upstream timeout. */
const PENDING_LABEL = { test: 'Testing connection…', discover: 'Discovering models…', update: 'Saving…', remove: 'Removing…' } as const;

function Chips({ items }: { items: string[] }) {
  if (items.length === 0) return <span className="muted">none</span>;
  return (
    <span className="chips">
      {items.map((item) => (
        <span key={item} className="chip">
          {item}
        </span>
      ))}
    </span>
  );
}

function CheckResult({ check, kind }: { check: ConnectionCheck; kind: ProviderInfo['kind'] }) {
  return (
    <div className="result-line">
      <span className={`badge ${check.ok ? 'badge-success' : 'badge-danger'}`}>{check.ok ? 'ok' : 'failed'}</span>
      <span>{check.message}</span>
      {check.ok && kind === 'openai' ? (
        <>
          <span className="muted">Models ({check.models.length}):</span>
          <Chips items={check.models} />
        </>
      ) : null}
      {check.facts.length > 0 ? (
        <dl className="engine-facts" aria-label="What the engine reports">
          {check.facts.map((fact) => (
            <div key={fact.label}>
              <dt className="muted">{fact.label}</dt>
              <dd>{fact.value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </div>
  );
}

function DiscoveryResult({ discovery }: { discovery: Discovery }) {
  return (
    <>
      <div className="result-line">
        <span className="muted">Added to the catalog:</span>
        <Chips items={discovery.added} />
      </div>
      <div className="result-line">
        <span className="muted">Skipped (no known price, or a name that cannot be a model id):</span>
        <Chips items={discovery.skipped} />
      </div>
    </>
  );
}

export function ProviderRow({ provider }: { provider: ProviderInfo }) {
  const { providers, catalog } = useStores();
  const { id, kind } = provider;
  const catalogModels = useStore(catalog, (s) => s.models);
  const served = useMemo(() => catalogModels.filter((m) => m.routes.some((r) => r.provider === id)).map((m) => m.record.id), [catalogModels, id]);
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState(false);
  const [addingWorkflow, setAddingWorkflow] = useState(false);
  const check = useStore(providers, (s) => s.checks[id]);
  const health = useStore(providers, (s) => s.health[id]);
  const discovery = useStore(providers, (s) => s.discoveries[id]);
  const pending = useStore(providers, (s) => s.pending[id]);
  const error = useStore(providers, (s) => (s.actionError?.id === id ? s.actionError.message : null));
  const busy = pending !== undefined;
  const showConfirm = confirming && served.length > 0;
  const hasResults = Boolean(editing || addingWorkflow || check || discovery || error || showConfirm);
  // A provider still serving models cannot go alone: ask once, then remove both together.
  const remove = () => (served.length > 0 ? setConfirming(true) : void providers.getState().remove(id));
  const removeWithModels = () => {
    setConfirming(false);
    void providers.getState().remove(id, { withModels: true });
  };

  return (
    <>
      <tr className={hasResults ? 'row-open' : undefined}>
        <td>
          <strong className="nowrap">{id}</strong>
          <div className="muted small">added {formatTime(provider.created_at)}</div>
        </td>
        <td>
          <span className={`badge ${kind === 'fal' ? 'badge-warning' : 'badge-accent'}`}>{kind}</span>
        </td>
        <td className="mono">
          {provider.base_url}
          {provider.timeout_seconds !== null ? <div className="muted small">timeout {provider.timeout_seconds} s</div> : null}
        </td>
        <td>
          <span className={`badge badge-raw ${provider.key_problem ? 'badge-danger' : provider.key_source === 'none' ? '' : 'badge-success'}`}>{provider.key_source}</span>
          {provider.key_problem ? <div className="small key-problem" role="note">{provider.key_problem}</div> : null}
        </td>
        <HealthCell health={health} />
        <td>
          <div className="row-actions" aria-busy={busy}>
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => void providers.getState().test(id)}>
              Test connection
            </button>
            {kind !== 'fal' ? (
              <button type="button" className="btn btn-small" disabled={busy} onClick={() => void providers.getState().discover(id)}>
                Discover models
              </button>
            ) : null}
            {kind === 'comfyui' ? (
              <button type="button" className="btn btn-small" aria-expanded={addingWorkflow} onClick={() => setAddingWorkflow(!addingWorkflow)}>
                Add workflow model
              </button>
            ) : null}
            <button type="button" className="btn btn-small" disabled={busy} aria-expanded={editing} onClick={() => setEditing(!editing)}>
              Edit
            </button>
            <button type="button" className="btn btn-small btn-danger" disabled={busy || showConfirm} onClick={remove}>
              Remove
            </button>
            {pending ? (
              <span className="muted small nowrap" role="status" aria-label={`Progress for ${id}`}>
                <span className="spinner" aria-hidden="true" />
                {PENDING_LABEL[pending]}
              </span>
            ) : null}
          </div>
        </td>
      </tr>
      {hasResults ? (
        <tr>
          <td colSpan={COLUMNS}>
            <div className="provider-results">
              {editing ? <ProviderEditForm provider={provider} onDone={() => setEditing(false)} /> : null}
              {addingWorkflow ? <WorkflowModelForm providerId={id} onDone={() => setAddingWorkflow(false)} /> : null}
              {showConfirm ? (
                <ProviderRemoveConfirm id={id} models={served} onConfirm={removeWithModels} onCancel={() => setConfirming(false)} />
              ) : null}
              {check || discovery ? (
                <div className="provider-results" role="status" aria-label={`Results for ${id}`}>
                  {check ? <CheckResult check={check} kind={kind} /> : null}
                  {discovery ? <DiscoveryResult discovery={discovery} /> : null}
                </div>
              ) : null}
              <ErrorMessage message={error} />
            </div>
          </td>
        </tr>
      ) : null}
    </>
  );
}
