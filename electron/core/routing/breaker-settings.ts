// The owner's circuit-breaker numbers (config.json `circuitBreaker`), apart from the breaker so
// the settings loader can name them without the store.

export interface BreakerSettings {
  /** Failures in a row that trip the breaker. */
  failures: number;
  /** How long a tripped breaker skips the provider before its trial request. */
  skipSeconds: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { failures: 3, skipSeconds: 30 };
