// Stops the server global setup started (SIGTERM, then SIGKILL) and removes its data dir.
import { rmSync } from 'node:fs';
import { readServerState } from './server-state';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function globalTeardown(): Promise<void> {
  const state = readServerState();
  if (state.pid > 0 && alive(state.pid)) {
    process.kill(state.pid, 'SIGTERM');
    for (let i = 0; i < 50 && alive(state.pid); i += 1) await new Promise((r) => setTimeout(r, 100));
    if (alive(state.pid)) process.kill(state.pid, 'SIGKILL');
  }
  if (!process.env.MGW_E2E_KEEP_DATA) rmSync(state.dataDir, { recursive: true, force: true });
}
