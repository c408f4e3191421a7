// What global setup shares with the specs and the teardown: a JSON file whose path travels in
// MGW_E2E_STATE (environment set in global setup reaches the workers).
import { readFileSync } from 'node:fs';

export interface ServerState {
  pid: number;
  dataDir: string;
  /** e.g. http://127.0.0.1:41234/v1 */
  apiBaseUrl: string;
  /** e.g. http://127.0.0.1:41234/studio/#token=... */
  studioUrl: string;
  logFile: string;
}

export const STATE_ENV = 'MGW_E2E_STATE';

export function readServerState(): ServerState {
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the specs through playwright.config.ts (global setup)`);
  return JSON.parse(readFileSync(file, 'utf8')) as ServerState;
}
