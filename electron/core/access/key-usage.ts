// Per-key usage for the owner: requests, tokens and spend by UTC day and model.
import type { KeyUsage } from '../../../shared/studio-contract.js';
import { formatUsd } from '../billing/money.js';
import type { Gateway } from '../gateway.js';
import { dailyTokenQuota } from './limits.js';

export async function keyUsage(gateway: Gateway, keyId: string): Promise<KeyUsage> {
  const key = await gateway.keys.get(keyId);
  const rows = await gateway.access.usage.rows(key.id);
  const totals = { requests: 0, input_tokens: 0, output_tokens: 0, spend_nano: 0 };
  for (const row of rows) {
    totals.requests += row.requests;
    totals.input_tokens += row.input_tokens;
    totals.output_tokens += row.output_tokens;
    totals.spend_nano += row.spend_nano;
  }
  return {
    key_id: key.id,
    totals: { requests: totals.requests, input_tokens: totals.input_tokens, output_tokens: totals.output_tokens, spend_usd: formatUsd(totals.spend_nano) },
    tokens_today: await gateway.access.usage.tokensToday(key.id, gateway.clock.now()),
    daily_token_quota: dailyTokenQuota(gateway.access.settings, key.access),
    by_day: rows.map((row) => ({
      day: row.day,
      model: row.model,
      requests: row.requests,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      spend_usd: formatUsd(row.spend_nano),
    })),
  };
}
