// The floor for any Node.js gateway on this machine: a bare pass-through that forwards the
// image request to the upstream and streams its body back as it arrives, with no auth, checks
// or billing. Run beside the gateway so the report shows what the extra hop itself costs here.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.env.MGW_BENCH_UPSTREAM_URL!;
const key = process.env.MGW_BENCH_UPSTREAM_KEY!;
const agent = new Agent({ connections: 128 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { model: string };
    body.model = 'gpt-image-1';
    request(`${upstream}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: agent,
    })
      .then(async (response) => {
        res.writeHead(response.statusCode, { 'content-type': 'application/json' });
        for await (const chunk of response.body) res.write(chunk);
        res.end();
      })
      .catch(() => res.writeHead(502).end());
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`TOKEN none\nPORT ${typeof address === 'object' && address ? address.port : 0}\n`);
});
