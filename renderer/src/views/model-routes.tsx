// A model's routes: the providers that serve it, in the order the gateway tries them, and buttons
// to change that order (what `mgw models put --route` sets). The client sees one model whichever
// serves; a route whose provider fails before doing any work passes the request to the next.
import type { CatalogModel, CatalogRoute } from '../../../shared/studio-contract';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

function moved(routes: CatalogRoute[], from: number, to: number): CatalogRoute[] {
  const next = [...routes];
  const [route] = next.splice(from, 1);
  next.splice(to, 0, route!);
  return next;
}

export function ModelRoutes({ model }: { model: CatalogModel }) {
  const { catalog } = useStores();
  const id = model.record.id;
  const busy = useStore(catalog, (s) => s.routing !== null);
  const error = useStore(catalog, (s) => (s.routing === null ? s.routesError : null));
  const routes = model.routes;
  const move = (from: number, to: number) => void catalog.getState().setRoutes(id, moved(routes, from, to));
  return (
    <>
      <h3>Routes</h3>
      <ol className="route-list" aria-label={`Routes of ${id}`}>
        {routes.map((route, i) => (
          <li key={`${route.provider}:${route.upstream_model}`}>
            <span>
              <strong>{route.provider}</strong> <span className="mono">{route.upstream_model}</span>
              {route.workflow ? <span className="muted small"> (workflow)</span> : null}
            </span>
            {routes.length > 1 ? (
              <span className="row-actions">
                <button type="button" className="btn btn-small btn-ghost" disabled={busy || i === 0} aria-label={`Move ${route.provider} up`} onClick={() => move(i, i - 1)}>
                  ↑
                </button>
                <button type="button" className="btn btn-small btn-ghost" disabled={busy || i === routes.length - 1} aria-label={`Move ${route.provider} down`} onClick={() => move(i, i + 1)}>
                  ↓
                </button>
              </span>
            ) : null}
          </li>
        ))}
      </ol>
      {routes.length > 1 ? <p className="muted small">Tried in this order: a route that cannot be reached, is rate limited or unavailable passes the request to the next.</p> : null}
      <ErrorMessage message={error} />
    </>
  );
}
