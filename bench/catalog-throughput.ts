// GET /v1/models requests/s through the gateway vs a bare node:http server sending the same
// bytes. Each server runs in its own process; autocannon loads them alternately, several
// rounds, and the medians are compared, so machine noise hits both sides alike.
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

function startServer(script: string, args: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function load(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: 32, pipelining: 1, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export async function benchCatalogThroughput(rounds = 3, seconds = 4): Promise<ThroughputResult> {
  const gateway = await startServer('./servers/gateway-server.js');
  const gatewayUrl = `http://127.0.0.1:${gateway.port}/v1/models`;
  const body = Buffer.from(await (await fetch(gatewayUrl)).arrayBuffer());
  const bare = await startServer('./servers/bare-server.js', [body.toString('base64')]);
  const bareUrl = `http://127.0.0.1:${bare.port}/v1/models`;
  try {
    await load(gatewayUrl, 1); // warm up both (JIT, caches)
    await load(bareUrl, 1);
    const g: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) {
      b.push(await load(bareUrl, seconds));
      g.push(await load(gatewayUrl, seconds));
    }
    const gatewayRps = median(g);
    const baselineRps = median(b);
    return {
      name: 'GET /v1/models throughput',
      gateway_rps: Math.round(gatewayRps),
      baseline_rps: Math.round(baselineRps),
      ratio: Number((gatewayRps / baselineRps).toFixed(3)),
      target_ratio: 0.9,
    };
  } finally {
    gateway.child.kill();
    bare.child.kill();
  }
}
