// What the gateway adds in front of an upstream, measured side by side in one run against
// calling the same emulator directly: sequential latency of a small image request, tail latency
// and throughput with 16 concurrent clients and a 20 ms upstream, and a 2 MB base64 image end
// to end. Three processes, as in real use: the emulator (the upstream), the gateway, and this
// one (the clients, on undici's request(), the leanest Node client, so the servers are what is
// measured). A bare pass-through proxy runs beside them as the floor: what one extra loopback
// hop through any Node server costs on this machine.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import sharp from 'sharp';
import { startServer, type BenchServer } from './catalog-throughput.js';
import type { EmulatorCommand } from './servers/emulator-server.js';

export interface OverheadResult {
  name: string;
  gateway: number;
  direct: number;
  /** The same figure through the bare pass-through proxy. */
  passThrough: number;
  unit: string;
  value: number;
  target: string;
  pass: boolean;
}

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};

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

export async function benchUpstreamOverhead(): Promise<OverheadResult[]> {
  const emulator = await startEmulator();
  const env = { MGW_BENCH_UPSTREAM_URL: emulator.baseUrl, MGW_BENCH_UPSTREAM_KEY: emulator.apiKey };
  const gateway = await startServer('./servers/gateway-upstream-server.js', [], env);
  const passThrough = await startServer('./servers/pass-through-server.js', [], env);
  const agent = new Agent({ connections: 64 });
  const call = (url: string, token: string, model: string) => {
    const body = JSON.stringify({ model, prompt: 'a small red square', size: '256x256' });
    return async () => {
      const response = await request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
        dispatcher: agent,
      });
      if (response.statusCode !== 200) throw new Error(`${url} ${response.statusCode}: ${await response.body.text()}`);
      await response.body.json();
    };
  };
  const viaGateway = call(`http://127.0.0.1:${gateway.port}/v1/images/generations`, gateway.token, 'up-image');
  const viaPassThrough = call(`http://127.0.0.1:${passThrough.port}/images/generations`, 'none', 'up-image');
  const direct = call(`${emulator.baseUrl}/images/generations`, emulator.apiKey, 'gpt-image-1');
  const timed = async (fn: () => Promise<void>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const results: OverheadResult[] = [];
  try {
    // 1. Sequential, small image: interleave the three so drift hits all alike.
    const sequential = async (n: number) => {
      const s = { g: [] as number[], p: [] as number[], d: [] as number[] };
      for (let i = 0; i < n; i++) {
        s.g.push(await timed(viaGateway));
        s.p.push(await timed(viaPassThrough));
        s.d.push(await timed(direct));
      }
      return s;
    };
    await sequential(300); // warm up (JIT, pools, caches)
    const seq = await sequential(1_500);
    const [g50, p50, d50] = [percentile(seq.g, 0.5), percentile(seq.p, 0.5), percentile(seq.d, 0.5)];
    results.push({ name: 'upstream image, sequential: added p50', gateway: g50, direct: d50, passThrough: p50, unit: 'ms', value: g50 - d50, target: '<= 0.5 ms', pass: g50 - d50 <= 0.5 });

    // 2. 16 concurrent clients, 20 ms upstream.
    await emulator.send({ settings: { latencyMs: 20 } });
    const load = async (fn: () => Promise<void>, ms: number) => {
      const samples: number[] = [];
      const end = performance.now() + ms;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < end) samples.push(await timed(fn));
        }),
      );
      return { samples, rps: samples.length / (ms / 1000) };
    };
    await load(viaGateway, 1_000);
    await load(viaPassThrough, 1_000);
    const gl = await load(viaGateway, 4_000);
    const pl = await load(viaPassThrough, 4_000);
    const dl = await load(direct, 4_000);
    const [g99, p99, d99] = [percentile(gl.samples, 0.99), percentile(pl.samples, 0.99), percentile(dl.samples, 0.99)];
    results.push({ name: 'upstream image, 16 clients, 20 ms upstream: added p99', gateway: g99, direct: d99, passThrough: p99, unit: 'ms', value: g99 - d99, target: '<= 2 ms', pass: g99 - d99 <= 2 });
    results.push({ name: 'upstream image, 16 clients, 20 ms upstream: throughput', gateway: gl.rps, direct: dl.rps, passThrough: pl.rps, unit: 'req/s', value: gl.rps / dl.rps, target: '>= 0.95x', pass: gl.rps / dl.rps >= 0.95 });
    await emulator.send({ settings: { latencyMs: 0 } });

    // 3. A 2 MB base64 image end to end (noise does not compress, so the PNG stays big).
    const side = 700;
    const noise = await sharp(Buffer.from(Array.from({ length: side * side * 3 }, (_, i) => (i * 2654435761) >>> 24)), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const bigBody = JSON.stringify({ created: 1, data: [{ b64_json: noise.toString('base64') }], usage: { input_tokens: 10, output_tokens: 1000 } });
    await emulator.send({ inject: { route: 'POST /v1/images/generations', fault: { body: bigBody } } });
    const big = await sequential(5).then(() => sequential(40));
    const [gb, pb, db] = [percentile(big.g, 0.5), percentile(big.p, 0.5), percentile(big.d, 0.5)];
    results.push({ name: `upstream image of ${(bigBody.length / 1e6).toFixed(1)} MB base64: end to end`, gateway: gb, direct: db, passThrough: pb, unit: 'ms', value: gb / db, target: '<= 1.2x', pass: gb / db <= 1.2 });
  } finally {
    for (const server of [gateway, passThrough] as BenchServer[]) server.child.kill();
    await agent.close();
    emulator.kill();
  }
  return results;
}
