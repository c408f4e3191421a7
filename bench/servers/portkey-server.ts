// The Portkey OSS gateway (@portkey-ai/gateway, a devDependency) as the bench's peer, in a
// process of its own. Its own entry, build/start-server.js, takes `--port=N` and `--headless`
// (no web UI, no log stream) and listens with server.listen(port) on every interface; this
// wrapper makes that listen bind 127.0.0.1 on a port the system picks and prints the port, as
// the other bench servers do, then loads Portkey's entry unchanged. Portkey needs no config file:
// each request names its provider and upstream in headers (x-portkey-provider: openai,
// x-portkey-custom-host: <emulator>/v1, Authorization: Bearer <upstream key>); 127.0.0.1 is in
// its default TRUSTED_CUSTOM_HOSTS. It opens no connection at start and none per request besides
// the upstream's (checked with strace: no DNS, no telemetry; guardrail and file calls to
// api.portkey.ai only happen for features these requests do not use).
import { Server } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const listen = Server.prototype.listen as (...args: unknown[]) => Server;
Server.prototype.listen = function (this: Server, ...args: unknown[]): Server {
  // @hono/node-server calls listen(port, undefined, callback).
  if (typeof args[0] === 'number') {
    args[0] = 0;
    if (args[1] === undefined || typeof args[1] === 'function') args[1] = '127.0.0.1';
    this.once('listening', () => {
      const address = this.address();
      process.stdout.write(`TOKEN none\nPORT ${typeof address === 'object' && address ? address.port : 0}\n`);
    });
  }
  return listen.apply(this, args);
} as typeof Server.prototype.listen;

const root = dirname(createRequire(import.meta.url).resolve('@portkey-ai/gateway/package.json'));
process.argv.splice(2, process.argv.length, '--headless');
await import(pathToFileURL(join(root, 'build', 'start-server.js')).href);
