// What the gateway knows of a provider's health from the requests it routed there: shown by
// `mgw providers list` and the studio's Providers view. Shared by the main process and the renderer.

/**
 * healthy: its last call succeeded; failing: its last calls failed (not yet enough to skip it);
 * skipped: its breaker skips it until `skipped_until`; unknown: no request has gone there yet.
 */
export type ProviderHealthState = 'healthy' | 'failing' | 'skipped' | 'unknown';

export interface ProviderHealth {
  provider: string;
  state: ProviderHealthState;
  /** Unix ms; set only while skipped. */
  skipped_until: number | null;
  consecutive_failures: number;
  /** The last failure, in the gateway's words (never an upstream's body). */
  last_error: string | null;
  last_error_at: number | null;
  /** The median of its recent successful calls, in ms. */
  latency_ms: number | null;
}

/** "healthy", "failing (2 in a row)", "skipped until 14:03:07", "unknown": one cell of a table. */
export function describeHealthState(health: ProviderHealth | undefined): string {
  if (!health || health.state === 'unknown') return 'unknown';
  if (health.state === 'skipped' && health.skipped_until !== null) return `skipped until ${new Date(health.skipped_until).toTimeString().slice(0, 8)}`;
  if (health.state === 'failing') return `failing (${health.consecutive_failures} in a row)`;
  return health.state;
}
