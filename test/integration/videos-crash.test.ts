// Restart safety: SIGKILL `mgw serve` while video tasks are in flight, start it again, and check
// that every task ends and every hold ends exactly once.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { createGateway } from '../../electron/core/gateway.js';
import { mgw, serve, type Served } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';

const dataDir = tempDir('mgw-crash-');
let server: Served | null = null;
afterAll(async () => {
  await server?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('crash safety of video tasks', () => {
  it('tasks in flight at SIGKILL resume at the next start; each hold ends once; the ledger balances', async () => {
    const key = JSON.parse(mgw(['keys', 'create', '--access', 'balance', '--balance-usd', '10', '--json', '--data-dir', dataDir]).stdout) as { id: string; token: string };
    server = await serve(['--data-dir', dataDir]);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await postJson(`${server.baseUrl}/videos`, { model: 'local-video', prompt: `crash ${i}`, seconds: 2, size: '480p' }, key.token);
      expect(response.status).toBe(200);
      ids.push((response.body as VideoTask).id);
    }
    // In flight at the kill: a render has started and the database says so (a task in_progress
    // with progress recorded), and none has ended yet, so the tasks must resume after the restart.
    const auth = { headers: { authorization: `Bearer ${key.token}` } };
    const first = server.baseUrl;
    const atKill = await waitFor(async () => {
      const all = await Promise.all(ids.map(async (id) => (await request(`${first}/videos/${id}`, auth)).body as VideoTask));
      return all.some((task) => task.status === 'in_progress' && task.progress > 0) ? all : null;
    }, 20_000, 10);
    expect(atKill.filter((task) => task.status !== 'queued' && task.status !== 'in_progress').map((task) => `${task.id} ${task.status}`)).toEqual([]);
    expect(await server.stop('SIGKILL')).toBeNull();

    server = await serve(['--data-dir', dataDir]);
    const base = server.baseUrl;
    const tasks = await waitFor(async () => {
      const all = await Promise.all(ids.map(async (id) => (await request(`${base}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask));
      return all.every((task) => task.status !== 'queued' && task.status !== 'in_progress') ? all : null;
    }, 25_000, 200);
    // Ended, and each one completed: a task the restart failed instead of resuming says so here.
    expect(tasks.map((task) => task.status)).toEqual(Array(4).fill('completed'));
    expect(tasks.map((task) => task.cost_usd)).toEqual(Array(4).fill('0.10000000'));
    await server.stop();
    server = null;

    const balance = JSON.parse(mgw(['balance', 'show', key.id, '--json', '--data-dir', dataDir]).stdout);
    expect(balance).toMatchObject({ balance_usd: '9.60000000', holds_usd: '0.00000000', available_usd: '9.60000000' });

    const gateway = await createGateway({ dataDir });
    try {
      const holds = await gateway.store.db.selectFrom('holds').selectAll().execute();
      const ledger = await gateway.store.db.selectFrom('ledger').selectAll().execute();
      expect(holds).toHaveLength(4);
      for (const hold of holds) {
        expect(hold.status).toBe('consumed');
        expect(ledger.filter((r) => r.hold_id === hold.id && r.kind === 'consume')).toHaveLength(1);
        expect(ledger.filter((r) => r.hold_id === hold.id && r.kind === 'release')).toHaveLength(0);
      }
    } finally {
      await gateway.close();
    }
  });
});
