// The detail panel of one model: pricing (route prices, minimum), limits, capabilities, sizes,
// snippets to call it, and removing it from the catalog.
import type { ReactNode } from 'react';
import type { CatalogModel } from '../../../shared/studio-contract';
import { formatBytes } from '../lib/format';
import { usd } from './model-price';
import { ModelRemove } from './model-remove';
import { ModelRoutes } from './model-routes';
import { ModelSnippets } from './model-snippets';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

const chips = (values: readonly (string | number)[] | undefined, suffix = '') =>
  values && values.length > 0 ? (
    <span className="chips">
      {values.map((v) => (
        <span key={String(v)} className="chip">
          {v}
          {suffix}
        </span>
      ))}
    </span>
  ) : (
    <span className="muted">—</span>
  );

export function ModelDetail({ model }: { model: CatalogModel }) {
  const r = model.record;
  const p = r.pricing;
  const c = r.capabilities;
  const flags = Object.entries(c).filter(([, v]) => v === true).map(([k]) => k);
  return (
    <aside className="card detail" aria-label={`Details of ${r.id}`}>
      <div className="detail-head">
        <h2>{r.id}</h2>
        <span className={`badge ${r.tier === 'pro' ? 'badge-accent' : ''}`}>{r.tier}</span>
      </div>
      <p className="muted">
        {r.model_type} · {r.modalities.input.join(', ')} → {r.modalities.output.join(', ')} · {model.routes.length > 1 ? `${model.routes.length} routes` : `provider ${model.provider}`} · owned by{' '}
        {r.owned_by}
      </p>

      <ModelRoutes key={`routes-${r.id}`} model={model} />

      <h3>Pricing</h3>
      <dl className="dl">
        <Row label="Mode">{r.pricing_mode}</Row>
        <Row label="Unit">
          {p.unit} ({p.currency})
        </Row>
        {p.input !== undefined ? <Row label="Input">{usd(p.input)}</Row> : null}
        {p.output !== undefined ? <Row label="Output">{usd(p.output)}</Row> : null}
        {p.price !== undefined ? <Row label="Price">{usd(p.price)}</Row> : null}
        {p.minimum_request_price_usd !== undefined ? <Row label="Minimum per request">{usd(p.minimum_request_price_usd)}</Row> : null}
        <Row label="Usage-based only">{r.usage_based_only ? 'yes' : 'no'}</Row>
      </dl>
      {p.route_prices_usd_per_second && p.route_prices_usd_per_second.length > 0 ? (
        <table className="table table-compact">
          <caption>Route prices</caption>
          <thead>
            <tr>
              <th scope="col">Route</th>
              <th scope="col">Request type</th>
              <th scope="col">Per second</th>
            </tr>
          </thead>
          <tbody>
            {p.route_prices_usd_per_second.map((rp) => (
              <tr key={`${rp.route}-${rp.request_type}`}>
                <td>{rp.route}</td>
                <td>{rp.request_type}</td>
                <td>{usd(rp.public_price_usd_per_second)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <h3>Limits</h3>
      <dl className="dl">
        <Row label="Context">
          {r.context_window.tokens ?? '—'} tokens · {r.context_window.chars ?? '—'} chars
        </Row>
        {c.max_reference_images !== undefined ? <Row label="Reference images">up to {c.max_reference_images}</Row> : null}
        {c.max_reference_image_bytes !== undefined ? <Row label="Reference size">{formatBytes(c.max_reference_image_bytes)} each</Row> : null}
        {c.max_task_seconds !== undefined ? <Row label="Task timeout">{c.max_task_seconds} s</Row> : null}
      </dl>

      <h3>Capabilities</h3>
      {chips(flags)}
      {c.request_types ? (
        <>
          <h3>Request types</h3>
          {chips(c.request_types)}
        </>
      ) : null}
      <h3>Sizes</h3>
      {chips(c.supported_sizes)}
      {c.supported_seconds ? (
        <>
          <h3>Seconds</h3>
          {chips(c.supported_seconds, ' s')}
        </>
      ) : null}
      <ModelSnippets model={r} />
      <ModelRemove key={r.id} id={r.id} />
    </aside>
  );
}
