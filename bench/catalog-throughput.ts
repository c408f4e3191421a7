// GET /v1/models requests/s through the gateway vs a bare node:http server sending the same
// bytes. Each server runs in its own process; autocannon loads them alternately in short
// paired rounds and the median of the per-round ratios is reported, so machine noise (other
// load on a 2-core box) hits both sides of each pair alike.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface ThroughputResult {
  name: string;
  gateway_rps: number;
  baseline_rps: number;
  ratio: number;
  target_ratio: number;
}

export interface BenchServer {
  child: ChildProcess;
  port: number;
  token: string;
}

export function startServer(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<BenchServer> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]), token: /TOKEN (\S+)/.exec(out)?.[1] ?? '' });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function load(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: 32, pipelining: 1, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export async function benchCatalogThroughput(rounds = 7, seconds = 2): Promise<ThroughputResult> {
  const gateway = await startServer('./servers/gateway-server.js');
  const gatewayUrl = `http://127.0.0.1:${gateway.port}/v1/models`;
  const body = Buffer.from(await (await fetch(gatewayUrl)).arrayBuffer());
  const bare = await startServer('./servers/bare-server.js', [body.toString('base64')]);
  const bareUrl = `http://127.0.0.1:${bare.port}/v1/models`;
  try {
    const bareBody = Buffer.from(await (await fetch(bareUrl)).arrayBuffer());
    if (!bareBody.equals(body)) throw new Error('the bare server does not answer the bytes the gateway answers');
    await load(gatewayUrl, 1); // warm up both (JIT, caches)
    await load(bareUrl, 1);
    const g: number[] = [];
    const b: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate which side goes first, so a load spike does not always land on the same one.
      const first = i % 2 === 0;
      const bare1 = first ? await load(bareUrl, seconds) : 0;
      const gw = await load(gatewayUrl, seconds);
      const bare = first ? bare1 : await load(bareUrl, seconds);
      g.push(gw);
      b.push(bare);
      ratios.push(gw / bare);
    }
    return {
      name: 'GET /v1/models throughput',
      gateway_rps: Math.round(median(g)),
      baseline_rps: Math.round(median(b)),
      ratio: Number(median(ratios).toFixed(3)),
      target_ratio: 0.95,
    };
  } finally {
    gateway.child.kill();
    bare.child.kill();
  }
}
