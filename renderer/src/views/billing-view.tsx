// Billing of the owner account: balance figures, spend chart, top-up, holds and the ledger.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { SpendChart } from '../components/spend-chart';
import { StatCard } from '../components/stat-card';
import { formatUsd } from '../lib/format';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { HoldsTable, LedgerTable } from './ledger-table';
import { TopUpForm } from './top-up-form';

export function BillingView() {
  const { billing } = useStores();
  const summary = useStore(billing, (s) => s.summary);
  const error = useStore(billing, (s) => s.error);
  const toppingUp = useStore(billing, (s) => s.toppingUp);
  const topUpError = useStore(billing, (s) => s.topUpError);

  useEffect(() => {
    void billing.getState().load();
  }, [billing]);

  const b = summary?.balance;
  return (
    <div className="view">
      <ErrorMessage message={error} />
      <div className="stats">
        <StatCard label="Balance" value={formatUsd(b?.balance_usd)} note={b ? `${b.access} account` : undefined} />
        <StatCard label="Allowance remaining" value={formatUsd(b?.allowance_remaining_usd)} />
        <StatCard label="Active holds" value={formatUsd(b?.holds_usd)} note={summary ? `${summary.holds.length} reserved` : undefined} />
        <StatCard label="Available" value={formatUsd(b?.available_usd)} note="ready to spend" />
      </div>
      <div className="split split-chart">
        <section className="card" aria-label="Spend over time">
          <h2>Spend over time</h2>
          <SpendChart points={summary?.spend_by_day ?? []} />
        </section>
        <section className="card" aria-label="Top up">
          <h2>Top up</h2>
          <p className="muted">Adds funds to the studio's own account.</p>
          <TopUpForm busy={toppingUp} onTopUp={(usd) => billing.getState().topUp(usd)} />
          <ErrorMessage message={topUpError} />
        </section>
      </div>
      <section className="card" aria-label="Active holds">
        <h2>Active holds</h2>
        <HoldsTable holds={summary?.holds ?? []} />
      </section>
      <section className="card table-card" aria-label="Ledger">
        <h2>Ledger</h2>
        <LedgerTable entries={summary?.ledger ?? []} />
      </section>
    </div>
  );
}
