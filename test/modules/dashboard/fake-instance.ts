// A small server registered with the manager as a remote instance: it answers the two calls the
// manager's health check makes, only with its token, echoes WebSocket messages on /echo, and
// records every request it gets (to show what the proxy forwards and what it keeps back).
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface FakeInstance {
  url: string;
  token: string;
  seen: { method: string; url: string; headers: IncomingHttpHeaders; upgrade: boolean }[];
  close(): Promise<void>;
}

export async function startFakeInstance(token = 'fake-instance-token'): Promise<FakeInstance> {
  const seen: FakeInstance['seen'] = [];
  const authorized = (headers: IncomingHttpHeaders) => headers.authorization === `Bearer ${token}`;
  const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, upgrade: false });
    if (!authorized(req.headers)) return json(res, 401, { error: 'UNAUTHORIZED', message: 'token' });
    if (req.url === '/api/runtime') return json(res, 200, { version: '0.0.0-fake', uptimeMs: 1, home: '/nowhere', pid: 1, agent: { busy: false, pending: 0 } });
    if (req.url === '/api/session') return json(res, 200, { provider: 'fake', model: 'fake', workingDir: '/nowhere' });
    // what a misbehaving instance could answer: a page that would run as the manager's origin
    if (req.url === '/media/page.html') return res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src *" }).end('<script>parent.postMessage(1)</script>');
    json(res, 404, { error: 'NOT_FOUND', message: req.url });
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => (offered.has('echo.v1') ? 'echo.v1' : false) });
  server.on('upgrade', (req, socket, head) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, upgrade: true });
    const path = (req.url ?? '').split('?')[0];
    if (!authorized(req.headers)) return void socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    if (path !== '/echo') return void socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(JSON.stringify({ hello: ws.protocol || null }));
      ws.on('message', (data, isBinary) => {
        if (!isBinary && String(data) === 'close please') return ws.close(4001, 'asked to');
        ws.send(data, { binary: isBinary });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    seen,
    async close() {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
