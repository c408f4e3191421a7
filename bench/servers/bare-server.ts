// Baseline for the catalog benchmark: a bare node:http server answering with fixed bytes.
import { createServer } from 'node:http';

const body = Buffer.from(process.argv[2] ?? '{}', 'base64');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
});
