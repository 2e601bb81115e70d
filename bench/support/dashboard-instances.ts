// The instances of bench/dashboard.ts and bench/fleet.ts, in one process: `idle` core servers with fake CLIs, and
// `busy` ones kept running a CLI that prints a line every 100 ms. Prints their URLs and tokens. With a third
// argument, each instance publishes that many events a second (`task_update` whose `removed` is the time it was
// published, for the reader's latency) once it gets SIGUSR1, and on SIGUSR2 stops and prints how many it published.
import { startAgentServer } from '../../test/support/agent.ts';

const [idle, busy, eventsPerSecond = 0] = process.argv.slice(2).map(Number) as [number, number, number?];
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
if (eventsPerSecond > 0) {
  let published = 0;
  let timers: NodeJS.Timeout[] = [];
  process.on('SIGUSR1', () => {
    timers = servers.map((s) =>
      setInterval(() => {
        s.app.services.bus.publish('task_update', { action: 'clear', removed: Date.now() });
        published++;
      }, 1000 / eventsPerSecond),
    );
  });
  process.on('SIGUSR2', () => {
    for (const t of timers) clearInterval(t);
    process.stdout.write(`${JSON.stringify({ published })}\n`);
  });
}
process.on('SIGTERM', () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
