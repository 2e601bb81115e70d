// One module's routes on the server kit (src/http/create-server.ts), as a server composes them: the
// same guard, error handler and route documentation, without the rest of the core server.
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/http/create-server.ts';
import { classifyPeer } from '../../src/http/peers.ts';

export async function moduleServer(mount: (app: FastifyInstance) => PromiseLike<unknown>): Promise<FastifyInstance> {
  const app = await createServer({
    info: { title: 'svc test', version: '0' },
    logLevel: 'silent',
    guard: { classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) },
  });
  await mount(app);
  await app.ready();
  return app;
}
