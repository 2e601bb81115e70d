// WebSocket fan-out (bench/fanout.ts): /ws beside a bare `ws` broadcast.
import { benchFanout } from './fanout.ts';
import { isMain } from './support/stats.ts';

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchFanout('ws'), null, 2));
