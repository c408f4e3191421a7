// One key's usage (keys.usage): totals, tokens used today against its daily quota, and rows by UTC
// day and model. The store reloads it while open when billing or activity events concern the key.
import type { ReactNode } from 'react';
import type { KeyUsage } from '../../../shared/studio-contract';
import { ErrorMessage } from '../components/alert';
import { ProgressBar } from '../components/progress-bar';
import { formatCount, formatUsd } from '../lib/format';
import { dailyQuota } from '../lib/usage';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

function Figure({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  return (
    <div className="usage-figure">
      <dt>{label}</dt>
      <dd>
        <span className="usage-value">{value}</span>
        {children}
      </dd>
    </div>
  );
}

function TokensToday({ usage }: { usage: KeyUsage }) {
  const quota = dailyQuota(usage);
  return (
    <Figure label="Tokens today (UTC)" value={formatCount(usage.tokens_today)}>
      {quota ? (
        <>
          <span className="muted small"> {quota.text}</span>
          <ProgressBar value={quota.percent} label="Daily token quota used" />
        </>
      ) : (
        <span className="muted small usage-note">no daily cap for paid access</span>
      )}
    </Figure>
  );
}

function ByDayTable({ rows }: { rows: KeyUsage['by_day'] }) {
  if (rows.length === 0) return <p className="empty">No requests with this key yet.</p>;
  return (
    <div className="usage-table-wrap">
      <table className="table table-compact usage-table">
        <caption>By day and model</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Model</th>
            <th scope="col" className="num">Requests</th>
            <th scope="col" className="num">Input tokens</th>
            <th scope="col" className="num">Output tokens</th>
            <th scope="col" className="num">Spend</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.day} ${r.model}`}>
              <td className="nowrap">{r.day}</td>
              <td className="mono">{r.model}</td>
              <td className="num">{formatCount(r.requests)}</td>
              <td className="num">{formatCount(r.input_tokens)}</td>
              <td className="num">{formatCount(r.output_tokens)}</td>
              <td className="num">{formatUsd(r.spend_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function KeyUsagePanel({ id, name }: { id: string; name: string }) {
  const { keys } = useStores();
  const usage = useStore(keys, (s) => (s.usage?.key_id === id ? s.usage : null));
  const error = useStore(keys, (s) => s.usageError);
  const { totals } = usage ?? {};
  return (
    <section className="key-usage" aria-label={`Usage of ${name}`}>
      <div className="section-head">
        <h3>Usage</h3>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => keys.getState().closeUsage()}>
          Close
        </button>
      </div>
      <ErrorMessage message={error} />
      {usage && totals ? (
        <>
          <dl className="usage-stats">
            <Figure label="Requests" value={formatCount(totals.requests)} />
            <Figure label="Input tokens" value={formatCount(totals.input_tokens)} />
            <Figure label="Output tokens" value={formatCount(totals.output_tokens)} />
            <Figure label="Spend" value={formatUsd(totals.spend_usd)} />
            <TokensToday usage={usage} />
          </dl>
          <ByDayTable rows={usage.by_day} />
        </>
      ) : error ? null : (
        <p className="muted" role="status">
          Loading usage…
        </p>
      )}
    </section>
  );
}
