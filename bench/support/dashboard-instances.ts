// The instances of bench/dashboard.ts, in one process: `idle` core servers with fake CLIs, and
// `busy` ones kept running a CLI that prints a line every 100 ms. Prints their URLs and tokens.
import { startAgentServer } from '../../test/support/agent.ts';

const [idle, busy] = process.argv.slice(2).map(Number) as [number, number];
const servers: Awaited<ReturnType<typeof startAgentServer>>[] = [];
for (let i = 0; i < idle + busy; i++) servers.push(await startAgentServer({}, { classifyPeer: () => 'remote' as const }));
for (const s of servers.slice(idle)) {
  void fetch(`${s.url}/api/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.app.services.token}` },
    body: JSON.stringify({ prompt: 'keep going scenario:text loop delay:100' }),
  }).catch(() => undefined);
}
process.stdout.write(`${JSON.stringify(servers.map((s, i) => ({ url: s.url, token: s.app.services.token, busy: i >= idle })))}\n`);
process.on('SIGTERM', () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
