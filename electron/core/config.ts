// Where the gateway keeps its data, and the owner's settings file (config.json in the data dir).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { limitsProblem, type LimitOverrides } from './access/limits.js';
import { GatewayError } from './errors.js';
import { DEFAULT_BREAKER, type BreakerSettings } from './routing/breaker-settings.js';

export const APP_NAME = 'media-gateway-studio';

/** --data-dir, else MGW_DATA_DIR, else the platform's app-data folder. */
export function resolveDataDir(flag?: string): string {
  if (flag) return flag;
  if (process.env.MGW_DATA_DIR) return process.env.MGW_DATA_DIR;
  return envPaths(APP_NAME, { suffix: '' }).data;
}

/**
 * The file that stands where the data dir, or a folder it would be made in, should be: the
 * owner's mistake (a path to a file), not an outage. Null when there is none.
 */
export function fileInDataDirPath(dir: string): string | null {
  for (let path = resolve(dir); ; path = dirname(path)) {
    let isDirectory: boolean | undefined;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      // Absent (or not searchable): look further up; mkdir says what else is wrong.
    }
    if (isDirectory !== undefined) return isDirectory ? null : path;
    if (dirname(path) === path) return null;
  }
}

export interface Settings {
  /** Host names answered besides localhost / 127.0.0.1 / [::1] (DNS-rebinding defense). */
  allowedHosts: string[];
  /** Browser origins (scheme://host[:port]) allowed to call /v1 with CORS; none by default. */
  allowedOrigins: string[];
  /** Requests without a token act as the anonymous principal (turbo models, its limits). */
  allowAnonymous: boolean;
  /** Request windows, daily tokens and the billing period, over the defaults. */
  limits: LimitOverrides;
  /** When a failing provider's routes are skipped: after `failures` in a row, for `skipSeconds`. */
  circuitBreaker: BreakerSettings;
  /** Team mode (docs/team.md): how long an instance's video task leases and heartbeat last. */
  team: { leaseSeconds: number };
}

export const DEFAULT_LEASE_SECONDS = 20;

export const DEFAULT_SETTINGS: Settings = {
  allowedHosts: [],
  allowedOrigins: [],
  allowAnonymous: false,
  limits: {},
  circuitBreaker: DEFAULT_BREAKER,
  team: { leaseSeconds: DEFAULT_LEASE_SECONDS },
};

export const settingsPath = (dataDir: string): string => join(dataDir, 'config.json');

export function loadSettings(dataDir: string): Settings {
  const path = settingsPath(dataDir);
  if (!existsSync(path)) return { ...DEFAULT_SETTINGS };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new GatewayError('invalid_request', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GatewayError('invalid_request', `${path} must hold a JSON object.`);
  }
  const settings = { ...DEFAULT_SETTINGS, ...(raw as Partial<Settings>) };
  if (!Array.isArray(settings.allowedHosts) || !settings.allowedHosts.every((h) => typeof h === 'string')) {
    throw new GatewayError('invalid_request', `${path}: allowedHosts must be an array of host names.`);
  }
  if (!Array.isArray(settings.allowedOrigins) || !settings.allowedOrigins.every((o) => typeof o === 'string' && /^https?:\/\/[^/\s?#]+$/.test(o))) {
    throw new GatewayError('invalid_request', `${path}: allowedOrigins must be an array of origins such as "http://localhost:3000".`);
  }
  if (typeof settings.allowAnonymous !== 'boolean') {
    throw new GatewayError('invalid_request', `${path}: allowAnonymous must be true or false.`);
  }
  const limits = limitsProblem(settings.limits);
  if (limits) throw new GatewayError('invalid_request', `${path}: ${limits}.`);
  settings.circuitBreaker = breakerSettings(settings.circuitBreaker, path);
  settings.team = teamSettings(settings.team, path);
  return settings;
}

/** team: {"leaseSeconds": 2..300}; a dead instance's tasks move on within it. */
function teamSettings(value: unknown, path: string): Settings['team'] {
  const problem = `${path}: team must be an object such as {"leaseSeconds": ${DEFAULT_LEASE_SECONDS}} (leaseSeconds a whole number from 2 to 300).`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GatewayError('invalid_request', problem);
  const { leaseSeconds = DEFAULT_LEASE_SECONDS, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof leaseSeconds !== 'number' || !Number.isInteger(leaseSeconds) || leaseSeconds < 2 || leaseSeconds > 300) {
    throw new GatewayError('invalid_request', problem);
  }
  return { leaseSeconds };
}

/** circuitBreaker: either number may be left out (its default stays); each is a whole number in range. */
function breakerSettings(value: unknown, path: string): BreakerSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GatewayError('invalid_request', `${path}: circuitBreaker must be an object such as {"failures": 3, "skipSeconds": 30}.`);
  const given = value as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (name !== 'failures' && name !== 'skipSeconds') throw new GatewayError('invalid_request', `${path}: circuitBreaker takes failures and skipSeconds, not ${JSON.stringify(name)}.`);
  }
  const whole = (name: keyof BreakerSettings, max: number): number => {
    const n = given[name] ?? DEFAULT_BREAKER[name];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) throw new GatewayError('invalid_request', `${path}: circuitBreaker.${name} must be a whole number from 1 to ${max}.`);
    return n;
  };
  return { failures: whole('failures', 1000), skipSeconds: whole('skipSeconds', 86_400) };
}
