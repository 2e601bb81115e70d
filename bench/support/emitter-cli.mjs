#!/usr/bin/env node
// A stand-in for `codex exec --json` that prints BENCH_LINES agent messages at BENCH_RATE lines/s
// (0 = as fast as possible), each carrying the time it was written, then ends the turn.
const lines = Number(process.env.BENCH_LINES ?? 1000);
const rate = Number(process.env.BENCH_RATE ?? 0);
const now = () => performance.timeOrigin + performance.now();
const write = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

write({ type: 'thread.started', thread_id: '00000000-0000-4000-8000-000000000000' });
write({ type: 'turn.started' });
const begin = now();
for (let i = 0; i < lines; i++) {
  if (rate > 0) {
    const wait = begin + (i * 1000) / rate - now();
    if (wait > 1) await sleep(wait);
  } else if (i % 500 === 0) {
    await new Promise((r) => setImmediate(r)); // let the pipe drain
  }
  write({ type: 'item.completed', item: { id: `item_${i}`, type: 'agent_message', text: `sent=${now()}` } });
}
write({ type: 'turn.completed', usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: lines } });
