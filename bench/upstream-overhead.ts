// What the gateway adds in front of an upstream, measured side by side in one run against
// calling the same emulator directly: sequential latency of a small image request, tail latency
// and throughput with 16 concurrent clients and a 20 ms upstream, and a 2 MB base64 image end
// to end. The gateway runs in its own process; the emulator and the clients share this one.
import { Agent, fetch } from 'undici';
import sharp from 'sharp';
import { startOpenAIEmulator } from '../test/emulators/index.js';
import { startServer } from './catalog-throughput.js';

export interface OverheadResult {
  name: string;
  gateway: number;
  direct: number;
  unit: string;
  value: number;
  target: string;
  pass: boolean;
}

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};

export async function benchUpstreamOverhead(): Promise<OverheadResult[]> {
  const emulator = await startOpenAIEmulator({ exactSize: false });
  emulator.imageSettings.maxSide = 16;
  const gateway = await startServer('./servers/gateway-upstream-server.js', [], {
    MGW_BENCH_UPSTREAM_URL: emulator.baseUrl,
    MGW_BENCH_UPSTREAM_KEY: emulator.apiKey,
  });
  const agent = new Agent({ connections: 64 });
  const body = JSON.stringify({ model: 'up-image', prompt: 'a small red square', size: '256x256' });
  const directBody = JSON.stringify({ model: 'gpt-image-1', prompt: 'a small red square', size: '256x256' });
  const viaGateway = async () => {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
      body,
      dispatcher: agent,
    });
    if (response.status !== 200) throw new Error(`gateway ${response.status}: ${await response.text()}`);
    await response.json();
  };
  const direct = async () => {
    const response = await fetch(`${emulator.baseUrl}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' },
      body: directBody,
      dispatcher: agent,
    });
    if (response.status !== 200) throw new Error(`direct ${response.status}`);
    await response.json();
  };
  const timed = async (fn: () => Promise<void>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const results: OverheadResult[] = [];
  try {
    // 1. Sequential, small image: alternate the two so drift hits both.
    for (let i = 0; i < 100; i++) await Promise.all([viaGateway(), direct()]); // warm up
    const g: number[] = [];
    const d: number[] = [];
    for (let i = 0; i < 600; i++) {
      g.push(await timed(viaGateway));
      d.push(await timed(direct));
    }
    const added = percentile(g, 0.5) - percentile(d, 0.5);
    results.push({ name: 'upstream image, sequential: added p50', gateway: percentile(g, 0.5), direct: percentile(d, 0.5), unit: 'ms', value: added, target: '<= 0.5 ms', pass: added <= 0.5 });

    // 2. 16 concurrent clients, 20 ms upstream.
    emulator.imageSettings.latencyMs = 20;
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
    const gl = await load(viaGateway, 4_000);
    const dl = await load(direct, 4_000);
    const addedP99 = percentile(gl.samples, 0.99) - percentile(dl.samples, 0.99);
    results.push({ name: 'upstream image, 16 clients, 20 ms upstream: added p99', gateway: percentile(gl.samples, 0.99), direct: percentile(dl.samples, 0.99), unit: 'ms', value: addedP99, target: '<= 2 ms', pass: addedP99 <= 2 });
    results.push({ name: 'upstream image, 16 clients, 20 ms upstream: throughput', gateway: gl.rps, direct: dl.rps, unit: 'req/s', value: gl.rps / dl.rps, target: '>= 0.95x', pass: gl.rps / dl.rps >= 0.95 });
    emulator.imageSettings.latencyMs = 0;

    // 3. A 2 MB base64 image end to end (noise does not compress, so the PNG stays big).
    const noise = await sharp(Buffer.from(Array.from({ length: 860 * 860 * 3 }, (_, i) => (i * 2654435761) >>> 24)), { raw: { width: 860, height: 860, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const bigBody = JSON.stringify({ created: 1, data: [{ b64_json: noise.toString('base64') }], usage: { input_tokens: 10, output_tokens: 1000 } });
    emulator.inject('POST /v1/images/generations', { body: bigBody });
    for (let i = 0; i < 5; i++) await Promise.all([viaGateway(), direct()]);
    const gb: number[] = [];
    const db: number[] = [];
    for (let i = 0; i < 30; i++) {
      gb.push(await timed(viaGateway));
      db.push(await timed(direct));
    }
    const ratio = percentile(gb, 0.5) / percentile(db, 0.5);
    results.push({ name: `upstream image of ${(bigBody.length / 1e6).toFixed(1)} MB base64: end to end`, gateway: percentile(gb, 0.5), direct: percentile(db, 0.5), unit: 'ms', value: ratio, target: '<= 1.2x', pass: ratio <= 1.2 });
  } finally {
    gateway.child.kill();
    await agent.close();
    await emulator.close();
  }
  return results;
}
