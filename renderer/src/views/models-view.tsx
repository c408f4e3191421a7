// Models: the live catalog with filters, and the details of the selected model.
import { useMemo, useState } from 'react';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { ModelDetail } from './model-detail';
import { ModelFilters, NO_FILTER, matches, type ModelFilter } from './model-filters';
import { priceSummary } from './model-price';

export function ModelsView() {
  const { catalog } = useStores();
  const models = useStore(catalog, (s) => s.models);
  const loaded = useStore(catalog, (s) => s.loaded);
  const error = useStore(catalog, (s) => s.error);
  const [filter, setFilter] = useState<ModelFilter>(NO_FILTER);
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const shown = useMemo(() => models.filter((m) => matches(m, filter)), [models, filter]);
  const selected = shown.find((m) => m.record.id === selectedId) ?? shown[0];

  return (
    <div className="view">
      <ModelFilters models={models} value={filter} onChange={setFilter} />
      <ErrorMessage message={error} />
      <div className="split split-detail">
        <section className="card table-card" aria-label="Catalog">
          <table className="table table-hover">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Type</th>
                <th scope="col">Tier</th>
                <th scope="col">Provider</th>
                <th scope="col">Price</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => {
                const r = m.record;
                const isSelected = r.id === selected?.record.id;
                return (
                  <tr key={r.id} className={isSelected ? 'row-selected' : undefined} onClick={() => setSelectedId(r.id)}>
                    <td>
                      <button type="button" className="link-button" aria-pressed={isSelected} onClick={() => setSelectedId(r.id)}>
                        {r.id}
                      </button>
                    </td>
                    <td>{r.model_type}</td>
                    <td>
                      <span className={`badge ${r.tier === 'pro' ? 'badge-accent' : ''}`}>{r.tier}</span>
                    </td>
                    <td>{m.routes.map((route) => route.provider).join(' > ')}</td>
                    <td className="muted">{priceSummary(r)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {loaded && shown.length === 0 ? <p className="empty">No model matches these filters.</p> : null}
          {!loaded ? <p className="empty">Loading the catalog…</p> : null}
        </section>
        {selected ? <ModelDetail model={selected} /> : null}
      </div>
    </div>
  );
}
