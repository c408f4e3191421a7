// Time is injected so billing periods, day rollovers and timeouts can be tested without waiting.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
