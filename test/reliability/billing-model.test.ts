// Model-based property test of the money rules (fast-check, fixed seed): random sequences of key
// creation, top-ups, access and allowance changes, image generations and edits on the built-in
// engine, video creations, completions, failures, cancels, timeouts, allowance periods renewing,
// concurrent creations racing for the last cents, and gateway restarts on the same data dir.
// After every step the real core (SQLite in a temp dir) must match an independent model in
// nano-USD: balances, allowance used, holds, ledger sums, cost_usd, and 402 exactly when the model
// says money is short (billing-model-support.ts, billing-model-commands.ts). On failure
// fast-check prints the seed, the path and the shrunk sequence; BILLING_MODEL_SEED and
// BILLING_MODEL_RUNS replay or widen it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessType } from '../../shared/api-types.js';
import { MAX_TASK_SECONDS, startReal, stopReal, type ImageModel, type Model, type Real } from './billing-model-support.js';
import {
  Cancel,
  COVERED,
  CreateKey,
  CreateVideo,
  Edit,
  Generate,
  MAX_KEYS,
  Race,
  Restart,
  seen,
  Tick,
  TopUp,
  UpdateKey,
  Upstream,
  type RaceOp,
} from './billing-model-commands.js';

const SEED = Number(process.env.BILLING_MODEL_SEED ?? 20_261_122);
const RUNS = Number(process.env.BILLING_MODEL_RUNS ?? 100);
const T0 = Date.parse('2026-11-22T08:00:00Z');
const USD = 1_000_000_000;

/**
 * Amounts near what things cost (video holds are multiples of $0.14, the image minimum is $0.01;
 * $0.002 and $0.015 hold a 3x edit's estimate but not its cost), and any.
 */
const amount = fc.oneof(
  fc.constantFrom(0, 0.002 * USD, 0.01 * USD, 0.015 * USD, 0.14 * USD, 0.28 * USD, 0.3 * USD, 0.56 * USD, USD, 3 * USD),
  fc.integer({ min: 0, max: 1.2 * USD }),
);
const access = fc.constantFrom<AccessType>('free', 'pro', 'balance');
const key = fc.nat(MAX_KEYS - 1);
const task = fc.nat(40);
const imageModel = fc.constantFrom<ImageModel>('local-image', 'local-image-pro');
const seconds = fc.constantFrom(2, 4, 8);
const raceOp: fc.Arbitrary<RaceOp> = fc.oneof(
  fc.record({ kind: fc.constant('video' as const), key, seconds }),
  fc.record({ kind: fc.constant('generate' as const), key, model: imageModel, side: fc.constantFrom(256, 768) }),
);
const createKey = fc.tuple(access, amount, amount).map(([a, b, c]) => new CreateKey(a, b, c));
const upstream = fc.tuple(task, fc.constantFrom('complete' as const, 'complete' as const, 'fail' as const, 'stuck' as const)).map(([t, o]) => new Upstream(t, o));
/** Mostly short steps (tasks get polled and finish), sometimes past the task limit or a whole allowance period. */
const tick = fc
  .oneof({ weight: 4, arbitrary: fc.constantFrom(1_000, 60_000) }, fc.constantFrom((MAX_TASK_SECONDS + 1) * 1000, 15 * 86_400_000, 31 * 86_400_000))
  .map((ms) => new Tick(ms));

const commands = fc.commands(
  [
    createKey,
    fc.tuple(key, amount.filter((n) => n > 0)).map(([k, n]) => new TopUp(k, n)),
    fc.tuple(key, fc.option(access, { nil: undefined }), fc.option(amount, { nil: undefined })).map(([k, a, n]) => new UpdateKey(k, a, n)),
    fc.tuple(key, imageModel, fc.constantFrom(256, 512, 768), fc.integer({ min: 1, max: 160 })).map(([k, mo, s, p]) => new Generate(k, mo, s, p)),
    fc.tuple(key, imageModel, fc.boolean(), fc.boolean()).map(([k, mo, l, s]) => new Edit(k, mo, l, s)),
    fc.tuple(key, seconds, fc.boolean()).map(([k, s, refused]) => new CreateVideo(k, s, refused && s === 2)),
    upstream,
    upstream,
    tick,
    tick,
    task.map((t) => new Cancel(t)),
    fc.constant(new Restart()),
    fc.array(raceOp, { minLength: 2, maxLength: 6 }).map((ops) => new Race(ops)),
    // One key's creations racing for its last cents.
    fc.tuple(key, fc.array(raceOp, { minLength: 2, maxLength: 8 })).map(([k, ops]) => new Race(ops.map((op) => ({ ...op, key: k })))),
  ],
  { maxCommands: 30, size: 'max' },
);

async function withSystem(work: (model: Model, real: Real) => Promise<void>): Promise<void> {
  const model: Model = { now: T0, keys: [], tasks: [] };
  const real = await startReal(model);
  try {
    await work(model, real);
  } finally {
    await stopReal(real);
  }
}

/** Runs a fixed sequence, each step checked against the model as in the property. */
const replay = (steps: fc.AsyncCommand<Model, Real>[]) =>
  withSystem(async (model, real) => {
    for (const step of steps) if (step.check(model)) await step.run(model, real);
  });

describe('money rules against a model (property)', () => {
  it(`random sequences keep the real core equal to the model (seed ${SEED}, ${RUNS} runs)`, async () => {
    seen.clear();
    await fc.assert(
      fc.asyncProperty(fc.array(createKey, { minLength: 1, maxLength: 3 }), commands, (keys, cmds) =>
        withSystem(async (model, real) => {
          for (const create of keys) await create.run(model, real);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          if (model.keys.some((k) => k.periodStart > T0)) seen.add('period renewed');
        }),
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
    expect(COVERED.concat('period renewed').filter((path) => !seen.has(path)), 'paths no run went through').toEqual([]);
  }, 120_000);
});

describe('regressions the model found (minimal sequences)', () => {
  it('three images at once against $0.01: the two that fit are charged, the third is 402 (all three were held, and one that fitted was refused after it was made)', () =>
    replay([
      new CreateKey('free', 0, 0),
      new Generate(0, 'local-image', 256, 6), // the engine loaded, as in a running gateway
      new CreateKey('balance', 10_000_000, 0),
      new Race([
        { kind: 'generate', key: 1, model: 'local-image', side: 256 },
        { kind: 'generate', key: 1, model: 'local-image', side: 768 },
        { kind: 'generate', key: 1, model: 'local-image-pro', side: 256 },
      ]),
    ]));

  it('a pro key paying a video from its allowance cannot be moved to free or balance access while the hold is uncovered; the video is charged in full', () =>
    replay([
      new CreateKey('pro', 0, 280_000_000),
      new CreateVideo(0, 2, false),
      new UpdateKey(0, 'free', undefined),
      new UpdateKey(0, 'balance', undefined),
      new UpdateKey(0, undefined, 100_000_000),
      new TopUp(0, 140_000_000),
      new UpdateKey(0, 'balance', undefined),
      new Upstream(0, 'complete'),
      new Tick(1_000),
    ]));

  it('keys update with nothing to change is 400, not a 500', () => replay([new CreateKey('free', 0, 0), new UpdateKey(0, undefined, undefined)]));
});
