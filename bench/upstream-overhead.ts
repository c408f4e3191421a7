// What a gateway adds in front of an upstream, four arms in one run against the same OpenAI
// emulator process (bench/servers/emulator-server.ts, test/emulators/):
//   direct   the client calls the emulator itself;
//   floor    a bare Node pass-through (bench/servers/pass-through-server.ts): no auth, no checks,
//            the request and the answer streamed through; what one extra loopback hop through
//            any Node server costs on this machine;
//   portkey  the Portkey OSS gateway (@portkey-ai/gateway, bench/servers/portkey-server.ts), its
//            OpenAI provider pointed at the emulator by the x-portkey-custom-host header;
//   gateway  this gateway (bench/servers/gateway-upstream-server.ts) with a balance key whose
//            request windows its config.json raises, so the bench meets no 429.
// Each server is a process of its own, as in real use; this process is the clients, on undici's
// request() (the leanest Node client), so the servers are what is measured. Every request asks
// for model gpt-image-1 at 1024x1024 (our gateway: its catalog model up-image, mapped to
// gpt-image-1); the emulator answers a 64x64 PNG.
// The arms are interleaved so drift on a shared machine hits all alike: round-robin per request
// in the sequential test (the order rotating each round), and short alternating slices (again
// rotating) under load. Targets are ratios to the floor and to Portkey, measured in this run.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import sharp from 'sharp';
import { startServer, type BenchServer } from './catalog-throughput.js';
import type { EmulatorCommand } from './servers/emulator-server.js';

export const ARMS = ['direct', 'floor', 'portkey', 'gateway'] as const;
export type Arm = (typeof ARMS)[number];
export type PerArm = Record<Arm, number>;

export interface OverheadResult {
  name: string;
  /** Unit of `arms`: a latency (ms) or a throughput (req/s). */
  unit: 'ms' | 'req/s';
  /** The figure each arm measured (p50 or p99 latency, or requests per second). */
  arms: PerArm;
  /** What the target compares, per proxy arm: ms added over direct, or the ratio to direct (x). */
  compared: { floor: number; portkey: number; gateway: number };
  comparedUnit: 'ms' | 'x';
  /** The target with its thresholds computed from this run's floor and Portkey figures. */
  target: string;
  pass: boolean;
}

export const SEQUENTIAL_ROUNDS = 1_500;
export const LOAD_CLIENTS = 16;
export const LOAD_LATENCY_MS = 20;
export const LOAD_SLICE_MS = 750;
export const LOAD_ROUNDS = 8;

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};

/** ARMS starting at index `by`, so no arm always runs right after the same other one. */
const rotated = (by: number): Arm[] => ARMS.map((_, i) => ARMS[(i + by) % ARMS.length]!);
const perArm = <T>(make: (arm: Arm) => T): Record<Arm, T> => Object.fromEntries(ARMS.map((arm) => [arm, make(arm)])) as Record<Arm, T>;

interface Emulator {
  baseUrl: string;
  apiKey: string;
  send(command: EmulatorCommand): Promise<void>;
  kill(): void;
}

async function startEmulator(): Promise<Emulator> {
  const child = fork(fileURLToPath(new URL('./servers/emulator-server.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ baseUrl: string; apiKey: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { baseUrl: string; apiKey: string }));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return {
    ...ready,
    send: (command) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send(command);
      }),
    kill: () => child.kill(),
  };
}

/** Width and height of a base64 PNG, from its IHDR chunk. */
const pngSize = (b64: string) => {
  const png = Buffer.from(b64.slice(0, 64), 'base64');
  return `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;
};

export async function benchUpstreamOverhead(): Promise<OverheadResult[]> {
  const emulator = await startEmulator();
  const env = { MGW_BENCH_UPSTREAM_URL: emulator.baseUrl, MGW_BENCH_UPSTREAM_KEY: emulator.apiKey };
  const servers: BenchServer[] = [];
  const agent = new Agent({ connections: 64 });
  try {
    const gateway = await startServer('./servers/gateway-upstream-server.js', [], env);
    servers.push(gateway);
    const floor = await startServer('./servers/pass-through-server.js', [], env);
    servers.push(floor);
    const portkey = await startServer('./servers/portkey-server.js');
    servers.push(portkey);

    const json = { 'content-type': 'application/json' };
    const target: Record<Arm, { url: string; headers: Record<string, string>; body: string }> = {
      direct: { url: `${emulator.baseUrl}/images/generations`, headers: { ...json, authorization: `Bearer ${emulator.apiKey}` }, body: '' },
      floor: { url: `http://127.0.0.1:${floor.port}/v1/images/generations`, headers: json, body: '' },
      portkey: {
        url: `http://127.0.0.1:${portkey.port}/v1/images/generations`,
        headers: { ...json, authorization: `Bearer ${emulator.apiKey}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': emulator.baseUrl },
        body: '',
      },
      gateway: { url: `http://127.0.0.1:${gateway.port}/v1/images/generations`, headers: { ...json, authorization: `Bearer ${gateway.token}` }, body: '' },
    };
    for (const arm of ARMS) {
      const model = arm === 'gateway' ? 'up-image' : 'gpt-image-1';
      target[arm].body = JSON.stringify({ model, prompt: 'a small red square', size: '1024x1024' });
    }
    const send = async (arm: Arm) => {
      const { url, headers, body } = target[arm];
      const response = await request(url, { method: 'POST', headers, body, dispatcher: agent });
      if (response.statusCode !== 200) throw new Error(`${arm}: ${url} answered ${response.statusCode}: ${await response.body.text()}`);
      return response.body;
    };
    const timed = async (arm: Arm) => {
      const start = performance.now();
      await (await send(arm)).arrayBuffer();
      return performance.now() - start;
    };

    // Every arm answers the same small image.
    for (const arm of ARMS) {
      const answer = (await (await send(arm)).json()) as { data: { b64_json: string }[] };
      const size = pngSize(answer.data[0]!.b64_json);
      if (size !== '64x64') throw new Error(`${arm} answered a ${size} PNG, not the emulator's 64x64`);
    }

    const sequential = async (rounds: number) => {
      const samples = perArm<number[]>(() => []);
      for (let i = 0; i < rounds; i++) for (const arm of rotated(i)) samples[arm].push(await timed(arm));
      return samples;
    };
    const results: OverheadResult[] = [];

    // 1. Sequential small image: added p50 over direct.
    await sequential(300); // warm up (JIT, pools, caches)
    const seq = await sequential(SEQUENTIAL_ROUNDS);
    const p50 = perArm((arm) => percentile(seq[arm], 0.5));
    const added50 = { floor: p50.floor - p50.direct, portkey: p50.portkey - p50.direct, gateway: p50.gateway - p50.direct };
    const [limitFloor50, limitPortkey50] = [1.5 * added50.floor, 0.5 * added50.portkey];
    results.push({
      name: 'upstream image 64x64, sequential: p50, added over direct',
      unit: 'ms',
      arms: p50,
      compared: added50,
      comparedUnit: 'ms',
      target: `<= 1.5 x floor's (${limitFloor50.toFixed(2)} ms) and <= 0.5 x Portkey's (${limitPortkey50.toFixed(2)} ms)`,
      pass: added50.gateway <= limitFloor50 && added50.gateway <= limitPortkey50,
    });

    // 2. 16 clients, 20 ms upstream: alternating slices, each arm in turn.
    await emulator.send({ settings: { latencyMs: LOAD_LATENCY_MS } });
    const slice = async (arm: Arm, ms: number) => {
      const samples: number[] = [];
      const start = performance.now();
      const end = start + ms;
      await Promise.all(
        Array.from({ length: LOAD_CLIENTS }, async () => {
          while (performance.now() < end) samples.push(await timed(arm));
        }),
      );
      return { samples, elapsed: performance.now() - start };
    };
    for (const arm of ARMS) await slice(arm, 500); // warm up
    const loaded = perArm(() => ({ samples: [] as number[], elapsed: 0 }));
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      for (const arm of rotated(round)) {
        const { samples, elapsed } = await slice(arm, LOAD_SLICE_MS);
        loaded[arm].samples.push(...samples);
        loaded[arm].elapsed += elapsed;
      }
    }
    await emulator.send({ settings: { latencyMs: 0 } });
    const rps = perArm((arm) => loaded[arm].samples.length / (loaded[arm].elapsed / 1000));
    const share = { floor: rps.floor / rps.direct, portkey: rps.portkey / rps.direct, gateway: rps.gateway / rps.direct };
    results.push({
      name: `upstream image, ${LOAD_CLIENTS} clients, ${LOAD_LATENCY_MS} ms upstream: throughput vs direct`,
      unit: 'req/s',
      arms: rps,
      compared: share,
      comparedUnit: 'x',
      target: `>= floor's - 0.03 (${(share.floor - 0.03).toFixed(3)}x) and > Portkey's (${share.portkey.toFixed(3)}x)`,
      pass: share.gateway >= share.floor - 0.03 && share.gateway > share.portkey,
    });
    const p99 = perArm((arm) => percentile(loaded[arm].samples, 0.99));
    const added99 = { floor: p99.floor - p99.direct, portkey: p99.portkey - p99.direct, gateway: p99.gateway - p99.direct };
    results.push({
      name: `upstream image, ${LOAD_CLIENTS} clients, ${LOAD_LATENCY_MS} ms upstream: p99, added over direct`,
      unit: 'ms',
      arms: p99,
      compared: added99,
      comparedUnit: 'ms',
      target: `< Portkey's (${added99.portkey.toFixed(2)} ms)`,
      pass: added99.gateway < added99.portkey,
    });

    // 3. A 2 MB base64 image end to end (noise does not compress, so the PNG stays big): reported
    // against the floor, since copying 2 MB is the hop's cost more than the gateway's.
    const side = 700;
    const noise = await sharp(Buffer.from(Array.from({ length: side * side * 3 }, (_, i) => (i * 2654435761) >>> 24)), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const bigBody = JSON.stringify({ created: 1, data: [{ b64_json: noise.toString('base64') }], usage: { input_tokens: 10, output_tokens: 1000 } });
    await emulator.send({ inject: { route: 'POST /v1/images/generations', fault: { body: bigBody } } });
    await sequential(5);
    const big = await sequential(40);
    const big50 = perArm((arm) => percentile(big[arm], 0.5));
    const bigRatio = { floor: big50.floor / big50.direct, portkey: big50.portkey / big50.direct, gateway: big50.gateway / big50.direct };
    results.push({
      name: `upstream image of ${(bigBody.length / 1e6).toFixed(1)} MB base64, sequential: p50 vs direct`,
      unit: 'ms',
      arms: big50,
      compared: bigRatio,
      comparedUnit: 'x',
      target: `<= floor's + 0.2x (${(bigRatio.floor + 0.2).toFixed(2)}x)`,
      pass: bigRatio.gateway <= bigRatio.floor + 0.2,
    });
    return results;
  } finally {
    for (const server of servers) server.child.kill();
    await agent.close();
    emulator.kill();
  }
}
