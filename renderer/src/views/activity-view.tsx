// Recent requests through the gateway, live (activity.added prepends).
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { activityAmount } from '../lib/activity-amount';
import { formatMs, formatTime } from '../lib/format';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

const statusClass = (status: number) => (status < 300 ? 'badge-success' : status < 500 ? 'badge-warning' : 'badge-danger');

export function ActivityView() {
  const { activity } = useStores();
  const entries = useStore(activity, (s) => s.entries);
  const loaded = useStore(activity, (s) => s.loaded);
  const error = useStore(activity, (s) => s.error);

  useEffect(() => {
    void activity.getState().load();
  }, [activity]);

  return (
    <div className="view">
      <ErrorMessage message={error} />
      <section className="card table-card" aria-label="Recent requests">
        <div className="section-head">
          <h2>Recent requests</h2>
          <button type="button" className="btn btn-small" onClick={() => void activity.getState().load()}>
            Refresh
          </button>
        </div>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Key</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">Latency</th>
              <th scope="col" className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>{formatTime(e.at)}</td>
                <td>{e.key_label || e.key_id || <span className="muted">anonymous</span>}</td>
                <td className="mono">
                  <span className="method">{e.method}</span> {e.endpoint}
                </td>
                <td>
                  {e.model ?? '—'}
                  {e.route ? <div className="muted small">via {e.route}</div> : null}
                  {e.failed_routes.map((f, i) => (
                    <div key={i} className="muted small">
                      {f.provider}: {f.reason}
                    </div>
                  ))}
                </td>
                <td>
                  <span className={`badge ${statusClass(e.status)}`}>{e.status}</span>
                </td>
                <td className="num">{formatMs(e.latency_ms)}</td>
                <td className="num" title={activityAmount(e).title}>
                  {activityAmount(e).text}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {loaded && entries.length === 0 ? <p className="empty">No requests yet.</p> : null}
        {!loaded ? <p className="empty">Loading…</p> : null}
      </section>
    </div>
  );
}
