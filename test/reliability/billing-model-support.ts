// The independent model of the money rules (integers in nano-USD, written from the contract,
// SPEC-DECISIONS and ARCHITECTURE, not from the billing code), the real system it is checked
// against (the gateway core on a SQLite file in a temp dir, a scripted video provider, an
// injected clock), and the check that compares the two after every step.
import { rmSync } from 'node:fs';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { AccessType } from '../../shared/api-types.js';
import { createGateway, type Gateway } from '../../electron/core/gateway.js';
import { GatewayError } from '../../electron/core/errors.js';
import type { Principal } from '../../electron/core/access/principal.js';
import type { ReferenceImage, VideoJob, VideoPoll, VideoProvider } from '../../electron/core/providers/provider.js';
import { tempDir } from '../helpers/gateway.js';

export const PERIOD_MS = 30 * 86_400_000;
/** The scripted video models: $0.07 per second; one whose provider refuses every creation. */
export const VIDEO_MODEL = 'video-model';
export const VIDEO_REFUSED = 'video-refused';
export const VIDEO_NANO_PER_SECOND = 70_000_000;
export const MAX_TASK_SECONDS = 300;

/** The built-in image models' prices (local-models.ts), per token in nano-USD, and minimums. */
export const IMAGE_PRICES = {
  'local-image': { input: 500, output: 4_000, minimum: 0, tier: 'turbo' },
  'local-image-pro': { input: 2_000, output: 30_000, minimum: 10_000_000, tier: 'pro' },
} as const;
export type ImageModel = keyof typeof IMAGE_PRICES;

/** The contract's token formula: (in * input + out * output) per 1M tokens, then the minimum. */
export function imageCost(model: ImageModel, inputTokens: number, outputTokens: number): number {
  const p = IMAGE_PRICES[model];
  return Math.max(inputTokens * p.input + outputTokens * p.output, p.minimum);
}
export const promptTokens = (prompt: string): number => Math.max(1, Math.ceil(prompt.length / 4));
export const patches = (side: number): number => Math.ceil((side * side) / 1024);

/** cost_usd and the balance view: 8 decimals, half up. */
export function usd(nano: number): string {
  const tens = Math.round(Math.abs(nano) / 10);
  return `${nano < 0 ? '-' : ''}${Math.floor(tens / 1e8)}.${String(tens % 1e8).padStart(8, '0')}`;
}

// ---- the model ------------------------------------------------------------------------------

export interface ModelKey {
  id: string;
  token: string;
  accountId: string;
  access: AccessType;
  balance: number;
  allowance: number;
  used: number;
  periodStart: number;
  topUps: number;
  charged: number;
}

export type TaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'timeout';
export interface ModelTask {
  id: string;
  key: number;
  hold: number;
  status: TaskStatus;
  deadline: number;
  charged: number;
}

export interface Model {
  now: number;
  keys: ModelKey[];
  tasks: ModelTask[];
}

export const isActive = (task: ModelTask): boolean => task.status === 'queued' || task.status === 'in_progress';
export const held = (m: Model, key: number): number => m.tasks.filter((t) => t.key === key && isActive(t)).reduce((s, t) => s + t.hold, 0);

/** The allowance period renews when it ends (a pure function of time). */
export function roll(m: Model, k: ModelKey): void {
  const elapsed = m.now - k.periodStart;
  if (elapsed < PERIOD_MS) return;
  k.periodStart += Math.floor(elapsed / PERIOD_MS) * PERIOD_MS;
  k.used = 0;
}

/** Who pays (SPEC-DECISIONS): only pro access spends its allowance. */
export function allowanceLeft(m: Model, key: number): number {
  const k = m.keys[key]!;
  roll(m, k);
  return k.access === 'pro' ? Math.max(0, k.allowance - k.used) : 0;
}

export function available(m: Model, key: number): number {
  return m.keys[key]!.balance + allowanceLeft(m, key) - held(m, key);
}

/** Moves a charge: allowance first, then balance. */
export function charge(m: Model, key: number, amount: number): void {
  const k = m.keys[key]!;
  const fromAllowance = Math.min(amount, allowanceLeft(m, key));
  k.used += fromAllowance;
  k.balance -= amount - fromAllowance;
  k.charged += amount;
  expect(k.balance, `balance of key ${key} below zero in the model`).toBeGreaterThanOrEqual(0);
}

export const paysMoney = (access: AccessType): boolean => access === 'pro' || access === 'balance';

// ---- the real system ------------------------------------------------------------------------

/** A video provider whose per-task outcome the test scripts; it outlives gateway restarts. */
export class ScriptedVideoProvider implements VideoProvider {
  readonly id = 'scripted';
  readonly kind = 'scripted';
  readonly outcome = new Map<string, 'stuck' | 'complete' | 'fail'>();

  async submitVideo(job: VideoJob): Promise<string> {
    if (job.modelId === VIDEO_REFUSED) throw new GatewayError('upstream_unavailable', 'The video provider is temporarily unavailable.');
    return `up-${job.taskId}`;
  }

  async pollVideo(job: VideoJob): Promise<VideoPoll> {
    const outcome = this.outcome.get(job.taskId) ?? 'stuck';
    if (outcome === 'complete') return { state: 'completed', output: { kind: 'url', url: `https://partner.example/${job.taskId}.mp4` } };
    if (outcome === 'fail') return { state: 'failed', message: 'The provider could not generate this video.' };
    return { state: 'in_progress', progress: 50 };
  }

  async cancelVideo(): Promise<void> {}
}

export interface Real {
  gateway: Gateway;
  provider: ScriptedVideoProvider;
  dir: string;
  clock: { now: () => number };
  refs: { small: ReferenceImage; large: ReferenceImage };
}

/** Opens the gateway on the system's data dir (at start, and again after a restart). */
export async function openGateway(real: Pick<Real, 'dir' | 'clock' | 'provider'>): Promise<Gateway> {
  const gateway = await createGateway({ dataDir: real.dir, clock: real.clock });
  gateway.providers.register(real.provider);
  return gateway;
}

let refs: Real['refs'] | null = null;
async function referenceImages(): Promise<Real['refs']> {
  const png = (side: number) =>
    sharp({ create: { width: side, height: side, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer();
  const ref = (bytes: Buffer): ReferenceImage => ({ field: 'image', filename: 'ref.png', mime: 'image/png', bytes });
  refs ??= { small: ref(await png(64)), large: ref(await png(256)) };
  return refs;
}

export async function startReal(model: Model): Promise<Real> {
  const dir = tempDir('mgw-billing-model-');
  const real = { dir, provider: new ScriptedVideoProvider(), clock: { now: () => model.now }, refs: await referenceImages() };
  const gateway = await openGateway(real);
  const base = (await gateway.catalog.find('local-video'))!.record;
  for (const id of [VIDEO_MODEL, VIDEO_REFUSED]) {
    await gateway.catalog.put({
      record: {
        ...base,
        id,
        pricing: { price: VIDEO_NANO_PER_SECOND / 1e9, currency: 'USD', unit: 'second' },
        capabilities: { ...base.capabilities, max_task_seconds: MAX_TASK_SECONDS },
      },
      providerId: real.provider.id,
      upstreamModel: id,
    });
  }
  return { ...real, gateway };
}

export async function stopReal(real: Real): Promise<void> {
  await real.gateway.close();
  rmSync(real.dir, { recursive: true, force: true });
}

/** As a request would: the principal of the key's token, authenticated now. */
export const principalOf = (real: Real, k: ModelKey): Promise<Principal> => real.gateway.keys.authenticate(k.token);

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; status: number; message: string };

/** A refusal of the gateway as data (a 4xx, or a provider's 503); anything else fails the property. */
export async function attempt<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof GatewayError && (error.status < 500 || error.code === 'upstream_unavailable')) return { ok: false, code: error.code, status: error.status, message: error.message };
    throw error;
  }
}

// ---- the comparison -------------------------------------------------------------------------

/** Every account, hold and task of the real system against the model, and the ledger's own sums. */
export async function verify(m: Model, real: Real): Promise<void> {
  const { gateway } = real;
  const db = gateway.store.db;
  for (const [i, k] of m.keys.entries()) {
    const where = `key ${i} (${k.access})`;
    // Through the money path: a period that ended shows (and is written) as renewed.
    const view = await gateway.billing.view(k.accountId);
    expect(view, where).toEqual({
      account_id: k.accountId,
      access: k.access,
      balance_usd: usd(k.balance),
      allowance_remaining_usd: usd(allowanceLeft(m, i)),
      holds_usd: usd(held(m, i)),
      available_usd: usd(available(m, i)),
    });
    expect(available(m, i), `${where}: available below zero`).toBeGreaterThanOrEqual(0);
    const row = await gateway.billing.getAccount(k.accountId);
    expect({ balance: row.balance_nano, used: row.allowance_used_nano, held: row.held_nano, allowance: row.allowance_nano, period: row.period_started_at }, where).toEqual({
      balance: k.balance,
      used: k.used,
      held: held(m, i),
      allowance: k.allowance,
      period: k.periodStart,
    });
    const ledger = await db.selectFrom('ledger').selectAll().where('account_id', '=', k.accountId).execute();
    const sum = (kind: string, pick: (r: (typeof ledger)[number]) => number) => ledger.filter((r) => r.kind === kind).reduce((s, r) => s + pick(r), 0);
    // balance = top-ups - charges; every charge is allowance plus balance.
    expect(sum('top_up', (r) => r.amount_nano), `${where}: top-ups`).toBe(k.topUps);
    expect(sum('consume', (r) => r.amount_nano), `${where}: charges`).toBe(k.charged);
    expect(row.balance_nano, `${where}: balance = top-ups - charges`).toBe(k.topUps + sum('consume', (r) => r.balance_delta_nano));
    for (const r of ledger.filter((x) => x.kind === 'consume')) expect(r.amount_nano).toBe(-r.balance_delta_nano - r.allowance_delta_nano);
    const holds = await db.selectFrom('holds').selectAll().where('account_id', '=', k.accountId).execute();
    expect(holds.filter((h) => h.status === 'active').reduce((s, h) => s + h.amount_nano, 0), `${where}: held = active holds`).toBe(row.held_nano);
    for (const hold of holds) {
      const endings = ledger.filter((r) => r.hold_id === hold.id && (r.kind === 'consume' || r.kind === 'release'));
      expect(endings, `${where}: hold ${hold.id} (${hold.status}) ends exactly once`).toHaveLength(hold.status === 'active' ? 0 : 1);
      if (hold.status === 'consumed') expect(endings[0]!.amount_nano).toBe(hold.charged_nano);
    }
  }
  for (const task of m.tasks) {
    const row = await real.gateway.videoTasks.get(task.id);
    expect(row, `task ${task.id}`).toBeDefined();
    const hold = await db.selectFrom('holds').selectAll().where('id', '=', row!.hold_id!).executeTakeFirstOrThrow();
    const expected = isActive(task) ? 'active' : task.status === 'completed' ? 'consumed' : 'released';
    expect({ status: row!.status === 'in_progress' ? 'queued' : row!.status, hold: hold.status, amount: hold.amount_nano, cost: row!.cost_nano }, `task ${task.id}`).toEqual({
      status: task.status === 'in_progress' ? 'queued' : task.status,
      hold: expected,
      amount: task.hold,
      cost: isActive(task) ? task.hold : task.charged,
    });
  }
}
