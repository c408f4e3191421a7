// Cold start: from spawning `mgw serve` on a fresh data dir to the first 200 on GET /v1/models,
// side by side with a bare node:http server started the same way (what Node itself costs).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './catalog-throughput.js';

export interface ColdStartResult {
  gateway_ms: number;
  bare_node_ms: number;
  target_ms: number;
}

const MGW = fileURLToPath(new URL('../../bin/mgw.js', import.meta.url));
const BARE = fileURLToPath(new URL('./servers/bare-server.js', import.meta.url));

async function firstOk(args: string[], pattern: RegExp, url: (match: string) => string): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = pattern.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const response = await fetch(url(base));
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return performance.now() - start;
  } finally {
    // Gone before its data dir is removed (its stop checkpoints and closes the database).
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
}

export async function benchColdStart(runs = 5): Promise<ColdStartResult> {
  const gateway: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-cold-'));
    gateway.push(await firstOk([MGW, 'serve', '--port', '0', '--data-dir', dir], /listening on (http:\/\/\S+\/v1)/, (base) => `${base}/models`));
    rmSync(dir, { recursive: true, force: true });
    bare.push(await firstOk([BARE, Buffer.from('{}').toString('base64')], /PORT (\d+)/, (port) => `http://127.0.0.1:${port}/v1/models`));
  }
  return { gateway_ms: Math.round(median(gateway)), bare_node_ms: Math.round(median(bare.filter(Number.isFinite))), target_ms: 300 };
}
