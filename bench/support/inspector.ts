// A client of a Node process's inspector (started with --inspect=127.0.0.1:0): the live heap after a
// forced full GC, and a heap snapshot, read over the Chrome DevTools Protocol on its WebSocket.
import WebSocket from 'ws';

export interface LiveMemory {
  /** Bytes of the JS heap still in use. */
  heapUsed: number;
  /** Bytes of ArrayBuffer and Buffer contents (kept outside the JS heap). */
  arrayBuffers: number;
}

export interface Inspector {
  /** Forces a full GC, then what the process still holds. */
  liveMemory(): Promise<LiveMemory>;
  /** A heap snapshot's JSON text (after a full GC: V8 collects before it takes one). */
  heapSnapshot(): Promise<string>;
  close(): void;
}

/** The inspector's WebSocket address, from what `node --inspect` printed on stderr; null until it did. */
export const inspectorUrl = (stderr: string): string | null => /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1] ?? null;

export async function connectInspector(url: string): Promise<Inspector> {
  const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 31 - 1 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(result: any): void; reject(error: Error): void }>();
  let chunks: string[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: { chunk: string } };
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params!.chunk);
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async liveMemory() {
      await call('HeapProfiler.collectGarbage');
      const { result } = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
      const { heapUsed, arrayBuffers } = JSON.parse(result.value) as LiveMemory;
      return { heapUsed, arrayBuffers };
    },
    async heapSnapshot() {
      chunks = [];
      await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      const text = chunks.join('');
      chunks = [];
      return text;
    },
    close: () => socket.close(),
  };
}
