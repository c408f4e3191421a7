// The floor for any Node.js gateway on this machine: a bare pass-through that streams the image
// request to the upstream as it arrives and streams the upstream's answer back as it arrives,
// with no auth, no checks, no parsing and no billing (it swaps in the upstream key, nothing
// else). Run beside the gateways so the report shows what the extra hop itself costs here.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.env.MGW_BENCH_UPSTREAM_URL!;
const key = process.env.MGW_BENCH_UPSTREAM_KEY!;
const agent = new Agent({ connections: 128 });

const server = createServer((req, res) => {
  const length = req.headers['content-length'];
  request(`${upstream}${req.url!.replace(/^\/v1/, '')}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(length ? { 'content-length': length } : {}) },
    body: req,
    dispatcher: agent,
  })
    .then(async (response) => {
      res.writeHead(response.statusCode, { 'content-type': 'application/json' });
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    })
    .catch(() => res.writeHead(502).end());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`TOKEN none\nPORT ${typeof address === 'object' && address ? address.port : 0}\n`);
});
