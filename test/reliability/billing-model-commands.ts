// The steps of the billing model test: each runs on the real gateway, applies the contract's rule
// to the model, and compares the two (billing-model-support.ts). `seen` records which paths the
// runs went through, so the property can fail when its generators stop reaching one.
import type fc from 'fast-check';
import { expect } from 'vitest';
import type { AccessType } from '../../shared/api-types.js';
import {
  attempt,
  available,
  charge,
  IMAGE_PRICES,
  imageCost,
  isActive,
  MAX_TASK_SECONDS,
  openGateway,
  patches,
  paysMoney,
  principalOf,
  promptTokens,
  usd,
  verify,
  VIDEO_MODEL,
  VIDEO_NANO_PER_SECOND,
  VIDEO_REFUSED,
  type ImageModel,
  type Model,
  type Outcome,
  type Real,
} from './billing-model-support.js';

export const MAX_KEYS = 4;
export const seen = new Set<string>();
/** The paths every full run of the property must go through at least once. */
export const COVERED = [
  'key changed',
  'key change refused',
  'image charged',
  'image charged more than held',
  'image refused',
  'image refused at its charge',
  'video refused',
  'video refused by provider',
  'completed',
  'failed',
  'timeout',
  'cancelled',
  'race lost',
  'restart',
];

type Cmd = fc.AsyncCommand<Model, Real>;
const contentUrl = (id: string) => `http://127.0.0.1/v1/videos/${id}/content`;
const pick = <T>(list: T[], index: number): T => list[index % list.length]!;
const keyIndex = (m: Model, index: number) => index % m.keys.length;

function expectRefused(out: Outcome<unknown>, code: string, label: string): void {
  expect(out.ok ? 'accepted' : `${out.code}: ${out.message}`, label).toMatch(new RegExp(`^${code}:`));
}

export class CreateKey implements Cmd {
  constructor(readonly access: AccessType, readonly balance: number, readonly allowance: number) {}
  check = (m: Model) => m.keys.length < MAX_KEYS;
  async run(m: Model, r: Real) {
    const created = await r.gateway.keys.create({ access: this.access, balanceNano: this.balance, allowanceNano: this.allowance });
    const { id, account_id: accountId } = created.key;
    m.keys.push({ id, token: created.token, accountId, access: this.access, balance: this.balance, allowance: this.allowance, used: 0, periodStart: m.now, topUps: this.balance, charged: 0 });
    await verify(m, r);
  }
  toString = () => `createKey(${this.access}, balance ${this.balance}, allowance ${this.allowance})`;
}

export class TopUp implements Cmd {
  constructor(readonly key: number, readonly amount: number) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const k = m.keys[keyIndex(m, this.key)]!;
    await r.gateway.billing.topUp(k.accountId, this.amount);
    k.balance += this.amount;
    k.topUps += this.amount;
    await verify(m, r);
  }
  toString = () => `topUp(key ${this.key}, ${this.amount})`;
}

/** `mgw keys update <id> [--access] [--allowance-usd]`. */
export class UpdateKey implements Cmd {
  constructor(readonly key: number, readonly access: AccessType | undefined, readonly allowance: number | undefined) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const i = keyIndex(m, this.key);
    const k = m.keys[i]!;
    const changes = { ...(this.access ? { access: this.access } : {}), ...(this.allowance !== undefined ? { allowanceNano: this.allowance } : {}) };
    const out = await attempt(() => r.gateway.keys.update(k.id, changes));
    const before = { access: k.access, allowance: k.allowance, available: available(m, i) };
    Object.assign(k, { access: this.access ?? k.access, allowance: this.allowance ?? k.allowance });
    const after = available(m, i);
    if (this.access === undefined && this.allowance === undefined) expectRefused(out, 'invalid_request', `${this}: nothing to change`);
    else if (after < 0 && after < before.available) {
      // Active holds are money promised to running tasks: a change that leaves them uncovered is refused.
      expectRefused(out, 'invalid_request', `${this}: holds left uncovered`);
      Object.assign(k, { access: before.access, allowance: before.allowance });
      seen.add('key change refused');
    } else {
      expect(out.ok ? 'changed' : out.message, this.toString()).toBe('changed');
      seen.add('key changed');
    }
    await verify(m, r);
  }
  toString = () => `updateKey(key ${this.key}, access ${this.access ?? '-'}, allowance ${this.allowance ?? '-'})`;
}

/**
 * An image request as the model sees it: free access pays nothing (turbo models only); paid
 * access holds the estimate (402 when it is not available) and is charged the full cost, or 402
 * with nothing charged when the cost is more than the account can cover.
 */
async function image(m: Model, r: Real, key: number, model: ImageModel, estimate: number, cost: number, label: string, run: () => Promise<{ usage: { cost_usd: string } }>) {
  const k = m.keys[key]!;
  const paid = paysMoney(k.access);
  const room = available(m, key);
  const refuse = paid ? estimate > room || cost > room : IMAGE_PRICES[model].tier !== 'turbo';
  const out = await attempt(run);
  if (refuse) {
    expectRefused(out, 'insufficient_balance', label);
    seen.add(paid && estimate <= room ? 'image refused at its charge' : 'image refused');
  } else {
    expect(out.ok ? out.value.usage.cost_usd : out.message, label).toBe(usd(paid ? cost : 0));
    if (paid) charge(m, key, cost);
    seen.add(paid && cost > estimate ? 'image charged more than held' : 'image charged');
  }
  await verify(m, r);
}

export class Generate implements Cmd {
  constructor(readonly key: number, readonly model: ImageModel, readonly side: number, readonly promptLength: number) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const i = keyIndex(m, this.key);
    const prompt = 'a lighthouse at dusk '.repeat(8).slice(0, this.promptLength);
    const cost = imageCost(this.model, promptTokens(prompt), patches(this.side));
    const principal = await principalOf(r, m.keys[i]!);
    await image(m, r, i, this.model, cost, cost, this.toString(), () => r.gateway.images.generate(principal, { model: this.model, prompt, size: `${this.side}x${this.side}` }));
  }
  toString = () => `generate(key ${this.key}, ${this.model}, ${this.side}px, prompt ${this.promptLength} chars)`;
}

export class Edit implements Cmd {
  /** `scale`: an instruction that makes the output 3x the reference, so it costs more than was held. */
  constructor(readonly key: number, readonly model: ImageModel, readonly large: boolean, readonly scale: boolean) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const i = keyIndex(m, this.key);
    const prompt = this.scale ? 'scale it 3x' : 'make it grayscale';
    const side = this.large ? 256 : 64;
    const input = promptTokens(prompt) + patches(side);
    const estimate = imageCost(this.model, input, patches(side));
    const cost = imageCost(this.model, input, patches(this.scale ? 3 * side : side));
    const principal = await principalOf(r, m.keys[i]!);
    const images = [this.large ? r.refs.large : r.refs.small];
    await image(m, r, i, this.model, estimate, cost, this.toString(), () => r.gateway.images.edit(principal, { model: this.model, prompt, images }));
  }
  toString = () => `edit(key ${this.key}, ${this.model}, ${this.large ? 256 : 64}px, ${this.scale ? 'scale 3x' : 'grayscale'})`;
}

export class CreateVideo implements Cmd {
  constructor(readonly key: number, readonly seconds: number, readonly refused: boolean) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const i = keyIndex(m, this.key);
    const hold = this.seconds * VIDEO_NANO_PER_SECOND;
    const principal = await principalOf(r, m.keys[i]!);
    const fields = { model: this.refused ? VIDEO_REFUSED : VIDEO_MODEL, prompt: 'a kite over the sea', seconds: this.seconds };
    const out = await attempt(() => r.gateway.videos.create(principal, { fields, references: [], transport: 'json' }, undefined, contentUrl));
    // Video models are pro tier and paid-only: free keys are refused whatever their balance.
    if (!paysMoney(m.keys[i]!.access) || hold > available(m, i)) {
      expectRefused(out, 'insufficient_balance', this.toString());
      seen.add('video refused');
    } else if (this.refused) {
      expectRefused(out, 'upstream_unavailable', this.toString());
      seen.add('video refused by provider');
    } else {
      expect(out.ok ? out.value.cost_usd : out.message, this.toString()).toBe(usd(hold));
      if (out.ok) m.tasks.push({ id: out.value.id, key: i, hold, status: 'queued', deadline: m.now + MAX_TASK_SECONDS * 1000, charged: 0 });
    }
    await verify(m, r);
  }
  toString = () => `createVideo(key ${this.key}, ${this.seconds} s${this.refused ? ', provider refuses' : ''})`;
}

/** What the upstream will answer about an active task from now on. */
export class Upstream implements Cmd {
  constructor(readonly task: number, readonly outcome: 'stuck' | 'complete' | 'fail') {}
  check = (m: Model) => m.tasks.some(isActive);
  async run(m: Model, r: Real) {
    r.provider.outcome.set(pick(m.tasks.filter(isActive), this.task).id, this.outcome);
  }
  toString = () => `upstream(task ${this.task} -> ${this.outcome})`;
}

/** The clock moves on (allowance periods renew by it), then one scheduler pass: every active task is polled or times out. */
export class Tick implements Cmd {
  constructor(readonly advanceMs: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.advanceMs;
    await r.gateway.scheduler.tick();
    for (const task of m.tasks.filter(isActive)) {
      const outcome = r.provider.outcome.get(task.id) ?? 'stuck';
      if (m.now >= task.deadline) task.status = 'timeout';
      else if (outcome === 'fail') task.status = 'failed';
      else if (outcome === 'stuck') task.status = 'in_progress';
      if (!isActive(task)) seen.add(task.status);
    }
    // Completions charge the full hold, allowance first (in any order: each takes what is left).
    for (const task of m.tasks.filter(isActive)) {
      if (r.provider.outcome.get(task.id) !== 'complete') continue;
      charge(m, task.key, task.hold);
      Object.assign(task, { status: 'completed', charged: task.hold });
      seen.add('completed');
    }
    await verify(m, r);
  }
  toString = () => `tick(+${this.advanceMs} ms)`;
}

export class Cancel implements Cmd {
  constructor(readonly task: number) {}
  check = (m: Model) => m.tasks.length > 0;
  async run(m: Model, r: Real) {
    const task = pick(m.tasks, this.task);
    const principal = await principalOf(r, m.keys[task.key]!);
    const view = await r.gateway.videos.cancel(principal, task.id, contentUrl);
    if (isActive(task)) {
      task.status = 'failed';
      seen.add('cancelled');
    }
    expect(view.status === 'in_progress' ? 'queued' : view.status).toBe(task.status === 'in_progress' ? 'queued' : task.status);
    await verify(m, r);
  }
  toString = () => `cancel(task ${this.task})`;
}

/** The gateway stops and starts again on the same data dir; the upstream keeps its jobs. */
export class Restart implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.gateway.close();
    r.gateway = await openGateway(r);
    await r.gateway.billing.releaseOrphans('image');
    seen.add('restart');
    await verify(m, r);
  }
  toString = () => 'restart()';
}

export type RaceOp = { kind: 'generate'; key: number; model: ImageModel; side: number } | { kind: 'video'; key: number; seconds: number };

/** Creations started together: per key, the winners must fit what was available, and no loser may fit beside them. */
export class Race implements Cmd {
  constructor(readonly ops: RaceOp[]) {}
  check = (m: Model) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const prompt = 'a race';
    const plans = await Promise.all(
      this.ops.map(async (op) => {
        const i = keyIndex(m, op.key);
        const k = m.keys[i]!;
        const paid = paysMoney(k.access);
        const cost = op.kind === 'video' ? op.seconds * VIDEO_NANO_PER_SECOND : imageCost(op.model, promptTokens(prompt), patches(op.side));
        const opens = paid || (op.kind === 'generate' && IMAGE_PRICES[op.model].tier === 'turbo');
        return { op, i, cost: paid ? cost : 0, opens, principal: await principalOf(r, k) };
      }),
    );
    const before = m.keys.map((_, i) => available(m, i));
    const outs = await Promise.all(
      plans.map(({ op, principal }) =>
        attempt(async () => {
          if (op.kind === 'generate') return { cost: (await r.gateway.images.generate(principal, { model: op.model, prompt, size: `${op.side}x${op.side}` })).usage.cost_usd, id: null };
          const task = await r.gateway.videos.create(principal, { fields: { model: VIDEO_MODEL, prompt, seconds: op.seconds }, references: [], transport: 'json' }, undefined, contentUrl);
          return { cost: task.cost_usd, id: task.id };
        }),
      ),
    );
    const won = m.keys.map(() => 0);
    plans.forEach((p, n) => {
      const out = outs[n]!;
      if (!p.opens) return expectRefused(out, 'insufficient_balance', `${this} op ${n}`);
      if (!out.ok) return expectRefused(out, 'insufficient_balance', `${this} op ${n}`);
      expect(out.value.cost, `${this} op ${n}`).toBe(usd(p.cost));
      won[p.i]! += p.cost;
    });
    plans.forEach((p, n) => {
      expect(won[p.i]!, `${this}: the winners of key ${p.i} spent more than was available`).toBeLessThanOrEqual(before[p.i]!);
      if (p.opens && !outs[n]!.ok) {
        expect(p.cost, `${this}: op ${n} was refused though it fitted beside the winners`).toBeGreaterThan(before[p.i]! - won[p.i]!);
        seen.add('race lost');
      }
    });
    plans.forEach((p, n) => {
      const out = outs[n]!;
      if (!out.ok) return;
      if (out.value.id) m.tasks.push({ id: out.value.id, key: p.i, hold: p.cost, status: 'queued', deadline: m.now + MAX_TASK_SECONDS * 1000, charged: 0 });
      else if (p.cost > 0) charge(m, p.i, p.cost);
    });
    await verify(m, r);
  }
  toString = () => `race(${this.ops.map((op) => (op.kind === 'video' ? `video k${op.key} ${op.seconds}s` : `generate k${op.key} ${op.model} ${op.side}px`)).join(', ')})`;
}
