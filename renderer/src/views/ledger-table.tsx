// The account ledger and the holds still reserved.
import type { ActiveHold, LedgerEntry } from '../../../shared/studio-contract';
import { formatTime, formatUsd } from '../lib/format';

export function LedgerTable({ entries }: { entries: LedgerEntry[] }) {
  if (entries.length === 0) return <p className="empty">No ledger entries yet.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Kind</th>
          <th scope="col" className="num">Amount</th>
          <th scope="col" className="num">Balance Δ</th>
          <th scope="col" className="num">Allowance Δ</th>
          <th scope="col">Reference</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td>{formatTime(e.created_at)}</td>
            <td>
              <span className="badge">{e.kind}</span>
            </td>
            <td className="num">{formatUsd(e.amount_usd)}</td>
            <td className="num">{formatUsd(e.balance_delta_usd)}</td>
            <td className="num">{formatUsd(e.allowance_delta_usd)}</td>
            <td className="mono muted">{e.ref ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function HoldsTable({ holds }: { holds: ActiveHold[] }) {
  if (holds.length === 0) return <p className="empty">No active holds.</p>;
  return (
    <table className="table table-compact">
      <thead>
        <tr>
          <th scope="col">Since</th>
          <th scope="col">Purpose</th>
          <th scope="col" className="num">Amount</th>
          <th scope="col">Reference</th>
        </tr>
      </thead>
      <tbody>
        {holds.map((h) => (
          <tr key={h.id}>
            <td>{formatTime(h.created_at)}</td>
            <td>{h.purpose}</td>
            <td className="num">{formatUsd(h.amount_usd)}</td>
            <td className="mono muted">{h.ref ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
