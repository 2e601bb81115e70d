// SSE fan-out (bench/fanout.ts): /api/events beside a bare node:http server.
import { benchFanout } from './fanout.ts';
import { isMain } from './support/stats.ts';

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchFanout('sse'), null, 2));
