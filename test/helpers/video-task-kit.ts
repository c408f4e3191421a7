// What the video race tests share: a hand-driven provider and model on a gateway, the task
// endpoints as one key, and the checks that a task ended once with its money settled.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from './gateway.js';
import { HandProvider, type Gate } from './hand-video-provider.js';
import { postJson, request } from './http.js';
import { addStubVideoModel } from './stub-video-provider.js';
import { ledgerProblems } from '../reliability/support.js';

/**
 * The hand-set clock of a race test file (`time.now`, moved by the tests) and `start`, which
 * opens a gateway on it without background work: the tests drive the scheduler one tick at a
 * time. Starting again on a data dir is a restart.
 */
export function handClock() {
  const time = { now: Date.parse('2026-11-21T12:00:00Z') };
  const start = (options: { dataDir?: string } = {}) => startTestGateway({ clock: { now: () => time.now }, background: false, ...options });
  return { time, start };
}

/** The kit for tests on the gateway `current()` returns (read when called: tests start it in beforeAll). */
export function videoTaskKit(current: () => TestGateway) {
  let models = 0;

  /** A fresh provider and model on `g`, and a key with $1 (a task holds $0.40). */
  async function setup(g: TestGateway = current()) {
    const stub = new HandProvider(`hand-${++models}`);
    const model = `video-hand-${models}`;
    await addStubVideoModel(g.gateway, stub, model, { max_task_seconds: 60 });
    const key = await g.key('balance', { balanceNano: USD });
    return { stub, model, key, ...callsOf(g, key.token, model) };
  }

  /** The task endpoints of `g` as `token`; `create` posts a 4 s task on `model`. */
  function callsOf(g: TestGateway, token: string, model: string) {
    const auth = { authorization: `Bearer ${token}` };
    const create = async () => {
      const response = await postJson(`${g.baseUrl}/videos`, { model, prompt: 'a kite', seconds: 4 }, token);
      expect(response.status).toBe(200);
      return response.body as VideoTask;
    };
    const cancel = async (id: string) => {
      const response = await request(`${g.baseUrl}/videos/${id}`, { method: 'DELETE', headers: auth });
      expect(response.status).toBe(200);
      return response.body as VideoTask;
    };
    const get = async (id: string) => (await request(`${g.baseUrl}/videos/${id}`, { headers: auth })).body as VideoTask;
    const content = (id: string) => fetch(`${g.baseUrl}/videos/${id}/content`, { headers: auth, redirect: 'manual' });
    return { create, cancel, get, content };
  }

  /**
   * Starts a creation on `s` whose submission stops at the first of `gates` (the others stop the
   * provider's next submissions); returns the task's id and the creation's answer to come.
   */
  async function createHeld(s: Awaited<ReturnType<typeof setup>>, ...gates: Gate[]) {
    s.stub.submitGates.push(...gates);
    const creating = s.create();
    await gates[0]!.reached;
    return { id: await taskOf(s.key.accountId), creating };
  }

  /** The id of the account's one task (one whose creation has not answered yet, say). */
  async function taskOf(accountId: string, g = current()): Promise<string> {
    return (await g.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow()).id;
  }

  /** The ledger of the account, oldest first, as kinds. */
  async function ledgerKinds(accountId: string, g = current()): Promise<string[]> {
    return (await g.gateway.billing.ledgerFor(accountId)).map((r) => r.kind).reverse();
  }

  /** Files the task left in the outputs dir (its MP4 or a partial download). */
  function outputsOf(taskId: string, g = current()): string[] {
    return readdirSync(join(g.dataDir, 'videos')).filter((name) => name.includes(taskId));
  }

  /** The task's account: every hold ended once, the money balances, nothing held. */
  async function expectSettled(accountId: string, g = current()): Promise<void> {
    expect((await ledgerProblems(g.gateway.store.db, { requireEnded: true })).filter((p) => p.accountId === accountId)).toEqual([]);
  }

  /** Cancelled and released: nothing charged, nothing held, no output on disk, no content. */
  async function expectCancelled(
    s: Pick<Awaited<ReturnType<typeof setup>>, 'key' | 'get' | 'content'>,
    id: string,
    code = 'cancelled',
    g = current(),
  ): Promise<void> {
    const status = code === 'timeout' ? 'timeout' : 'failed';
    expect(await s.get(id)).toMatchObject({ status, error: { code }, outputs: [], cost_usd: '0.00000000' });
    expect(await ledgerKinds(s.key.accountId, g)).toEqual(['top_up', 'reserve', 'release']);
    expect(await g.gateway.billing.view(s.key.accountId)).toMatchObject({ balance_usd: '1.00000000', holds_usd: '0.00000000' });
    expect(outputsOf(id, g)).toEqual([]);
    expect((await s.content(id)).status).toBe(409);
    await expectSettled(s.key.accountId, g);
  }

  return { setup, callsOf, createHeld, taskOf, ledgerKinds, outputsOf, expectSettled, expectCancelled, nextModel: () => ++models };
}
