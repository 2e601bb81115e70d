// The manager of bench/dashboard.ts, alone in its process so its memory and CPU can be read.
import { createManagerServer } from '../../src/servers/manager.ts';

const manager = await createManagerServer({ home: process.argv[2]!, scan: { from: 1, count: 0 }, logLevel: 'silent' });
process.stdout.write(`${await manager.listen(0)}\n`);
process.on('SIGTERM', () => void manager.close().then(() => process.exit(0)));
