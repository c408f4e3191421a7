// GET /v1/models latency while two videos encode, against the same server idle. Requests go
// one at a time over a keep-alive connection and are timed with hrtime, so the p99 is in
// microseconds rather than autocannon's whole milliseconds. Encoding runs in worker threads;
// this shows the event loop stays free for the API.
import { Agent, request } from 'node:http';
import { startServer } from './catalog-throughput.js';

export interface LoadLatencyResult {
  name: string;
  idle_p99_ms: number;
  loaded_p99_ms: number;
  ratio: number;
  target_ratio: number;
}

function get(agent: Agent, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/models', agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

async function p99(port: number, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await get(agent, port);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length * 0.99)] ?? 0;
}

async function createVideo(port: number, token: string, seconds: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'local-video', prompt: 'mountain lake at sunset with drifting clouds', seconds, size: '720p' }),
  });
  if (response.status !== 200) throw new Error(`video create: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function status(port: number, token: string, id: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/videos/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { status: string }).status;
}

export async function benchCatalogUnderVideoLoad(): Promise<LoadLatencyResult> {
  const server = await startServer('./servers/gateway-server.js');
  try {
    await p99(server.port, 500); // warm up
    const idle = await p99(server.port, 3000);
    const ids = [await createVideo(server.port, server.token, 8), await createVideo(server.port, server.token, 8)];
    await new Promise((r) => setTimeout(r, 200)); // let the workers start encoding
    const loaded = await p99(server.port, 3000);
    const busy = (await Promise.all(ids.map((id) => status(server.port, server.token, id)))).some((s) => s !== 'completed');
    return {
      name: `GET /v1/models p99 while two 8 s 720p videos encode${busy ? '' : ' (encodes finished early)'}`,
      idle_p99_ms: Number(idle.toFixed(3)),
      loaded_p99_ms: Number(loaded.toFixed(3)),
      ratio: Number((loaded / idle).toFixed(2)),
      target_ratio: 2,
    };
  } finally {
    server.child.kill();
  }
}
