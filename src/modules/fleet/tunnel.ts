// A byte stream between the hub and a machine's svc serve, carried by NATS messages: how the dashboard reaches an
// instance that has no inbound port. HTTP, SSE and WebSocket ride on it as on a TCP connection, so everything the
// dashboard does with an instance (its proxy, event bridge, health checks, schedule, chat) works unchanged.
//
// Each message is one frame: a type byte, the frame's sequence number (4 bytes), and its payload. Data goes in
// chunks well under NATS's payload limit, so a body of any size passes. The sender keeps at most WINDOW bytes
// unacknowledged; the receiver acknowledges what its reader took, so a slow reader slows the writer instead of
// filling NATS's buffers. NATS keeps one publisher's messages in order but may drop them across a reconnect: a
// frame out of sequence ends the stream with an error, never a gap in the bytes.
import { Duplex } from 'node:stream';

export const FRAME = { data: 0x44, ack: 0x41, end: 0x45, abort: 0x58 } as const;
type FrameType = (typeof FRAME)[keyof typeof FRAME];

/** The largest data payload of one message (NATS's default limit is 1 MiB). */
export const CHUNK_BYTES = 64 * 1024;
/** Bytes a sender may have in flight before it waits for an acknowledgement. */
export const WINDOW_BYTES = 1024 * 1024;
const HEADER_BYTES = 5;

export interface Frame {
  type: FrameType;
  seq: number;
  payload: Uint8Array;
}

export function encodeFrame(type: FrameType, seq: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const frame = new Uint8Array(HEADER_BYTES + payload.length);
  frame[0] = type;
  new DataView(frame.buffer).setUint32(1, seq >>> 0);
  frame.set(payload, HEADER_BYTES);
  return frame;
}

/** The frame a message carries, or undefined for anything else. Pure. */
export function decodeFrame(bytes: Uint8Array): Frame | undefined {
  if (bytes.length < HEADER_BYTES) return undefined;
  const type = bytes[0] as FrameType;
  if (!Object.values(FRAME).includes(type)) return undefined;
  const seq = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  const payload = bytes.subarray(HEADER_BYTES);
  if (type === FRAME.ack && payload.length !== 4) return undefined;
  return { type, seq, payload };
}

const u32 = (n: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, n >>> 0);
  return bytes;
};
const readU32 = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);

/**
 * One end of a tunnel: a Duplex whose writes go out as frames (`send`) and whose reads are the other end's frames
 * (`receive`). It has the few socket methods node:http and ws call on a connection, as no-ops.
 */
export class TunnelStream extends Duplex {
  private seqOut = 0;
  private seqIn = 0;
  private unacked = 0;
  /** A write waiting for the window to open. */
  private blocked?: () => void;
  /** Bytes pushed to the reader and not yet acknowledged to the sender. */
  private taken = 0;
  private ackWanted = false;
  private sentEnd = false;
  private gotEnd = false;
  private gotAbort = false;
  private idleMs = 0;
  private idleTimer?: NodeJS.Timeout;
  /** No remote address: the instance's guard treats a tunnelled caller as remote, so it presents the token. */
  readonly remoteAddress = undefined;

  constructor(
    readonly id: string,
    private readonly send: (frame: Uint8Array) => void,
    private readonly onGone: () => void,
  ) {
    super({ allowHalfOpen: true });
  }

  /** A frame from the other end. */
  receive(frame: Frame): void {
    if (this.destroyed) return;
    this.touch();
    // an abort counts whatever came before it: it may be the answer of an end that lost track of this tunnel
    if (frame.type === FRAME.abort) {
      this.gotAbort = true;
      // no reason: the other end closed without an error (as a socket's FIN): the reader sees the end
      const reason = Buffer.from(frame.payload).toString('utf8');
      if (!reason) this.push(null);
      return void this.destroy(reason ? new Error(reason) : undefined);
    }
    if (frame.seq !== this.seqIn) return void this.destroy(new Error('the tunnel lost a message (its NATS connection was interrupted)'));
    this.seqIn++;
    switch (frame.type) {
      case FRAME.data:
        this.taken += frame.payload.length;
        // a copy: the message's buffer is NATS's, and the reader may keep the chunk
        if (this.push(Buffer.from(frame.payload))) this.acknowledge();
        else this.ackWanted = true;
        return;
      case FRAME.ack:
        this.unacked -= readU32(frame.payload);
        if (this.unacked < WINDOW_BYTES && this.blocked) {
          const resume = this.blocked;
          this.blocked = undefined;
          resume();
        }
        return;
      case FRAME.end:
        this.gotEnd = true;
        this.push(null);
    }
  }

  private frame(type: FrameType, payload?: Uint8Array): void {
    this.send(encodeFrame(type, this.seqOut++, payload));
  }

  private acknowledge(): void {
    this.ackWanted = false;
    if (this.taken === 0) return;
    this.frame(FRAME.ack, u32(this.taken));
    this.taken = 0;
  }

  override _read(): void {
    if (this.ackWanted) this.acknowledge();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.touch();
    for (let at = 0; at < chunk.length; at += CHUNK_BYTES) {
      const piece = chunk.subarray(at, at + CHUNK_BYTES);
      this.frame(FRAME.data, piece);
      this.unacked += piece.length;
    }
    if (this.unacked < WINDOW_BYTES) done();
    else this.blocked = () => done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.sentEnd = true;
    this.frame(FRAME.end);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.gotAbort && !(this.sentEnd && this.gotEnd)) {
      try {
        this.frame(FRAME.abort, Buffer.from(err?.message ?? ''));
      } catch {
        // the connection is closed: the other end learns it from its own
      }
    }
    this.blocked = undefined;
    clearTimeout(this.idleTimer);
    this.onGone();
    done(err);
  }

  /** As a socket's: 'timeout' after `ms` without a frame either way (0: never); `callback` listens once. */
  setTimeout(ms: number, callback?: () => void): this {
    if (callback) {
      if (ms === 0) this.off('timeout', callback);
      else this.once('timeout', callback);
    }
    this.idleMs = ms;
    this.touch();
    return this;
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    if (this.idleMs <= 0 || this.destroyed) return;
    this.idleTimer = setTimeout(() => this.emit('timeout'), this.idleMs);
    this.idleTimer.unref();
  }

  // what node:http and ws call on a socket; a tunnel has no Nagle or keep-alive probes
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/**
 * The tunnels of one NATS connection, by key. A frame for a tunnel that is not there (one that ended, or one the
 * other end thinks is still open after a reconnect) is answered by an abort, once: never an abort to an abort.
 */
export class TunnelTable {
  private readonly open = new Map<string, TunnelStream>();

  constructor(private readonly sendTo: (key: string, frame: Uint8Array) => void) {}

  get size(): number {
    return this.open.size;
  }

  create(key: string): TunnelStream {
    const stream = new TunnelStream(key, (frame) => this.sendTo(key, frame), () => this.open.get(key) === stream && this.open.delete(key));
    this.open.set(key, stream);
    return stream;
  }

  dispatch(key: string, bytes: Uint8Array): void {
    const frame = decodeFrame(bytes);
    if (!frame) return;
    const stream = this.open.get(key);
    if (stream) return stream.receive(frame);
    if (frame.type !== FRAME.abort) this.sendTo(key, encodeFrame(FRAME.abort, 0, Buffer.from('no such tunnel (it ended, or the machine restarted)')));
  }

  /** Ends every tunnel whose key passes `which` (all of them by default), with `reason`. */
  abort(reason: string, which: (key: string) => boolean = () => true): void {
    for (const [key, stream] of [...this.open]) if (which(key)) stream.destroy(new Error(reason));
  }
}

/** A connection that fails with `reason` as soon as its user listens: for a tunnel that cannot be opened. */
export function failedConnection(reason: string): Duplex {
  const stream = new TunnelStream('failed', () => undefined, () => undefined);
  process.nextTick(() => stream.destroy(new Error(reason)));
  return stream;
}
