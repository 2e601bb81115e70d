// Pairing a new chat: a one-time code shown in the UI or CLI, which the user sends to the bot from the
// chat to add. One code per channel at a time, valid for ten minutes, used once; a wrong code is just
// a stranger's message (ignored), and after MAX_GUESSES wrong codes the code is void, so six digits
// cannot be guessed by flooding the bot. Pure apart from the clock.
import { randomInt } from 'node:crypto';
import type { ChannelName } from './adapter.ts';

export const PAIRING_TTL_MS = 10 * 60_000;
export const MAX_GUESSES = 5;

export class Pairing {
  private readonly codes = new Map<ChannelName, { code: string; expiresAt: number; wrong: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh code for `channel` (replacing any earlier one). */
  issue(channel: ChannelName): { code: string; expiresAt: number } {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expiresAt = this.now() + PAIRING_TTL_MS;
    this.codes.set(channel, { code, expiresAt, wrong: 0 });
    return { code, expiresAt };
  }

  /** Whether `text` is the live code of `channel`; a match uses the code up. */
  redeem(channel: ChannelName, text: string): boolean {
    const live = this.codes.get(channel);
    if (!live) return false;
    if (this.now() >= live.expiresAt) {
      this.codes.delete(channel);
      return false;
    }
    const given = text.trim().replace(/^\/pair(@\S+)?\s+/i, '');
    if (!/^\d{6}$/.test(given)) return false;
    if (given !== live.code) {
      if (++live.wrong >= MAX_GUESSES) this.codes.delete(channel);
      return false;
    }
    this.codes.delete(channel);
    return true;
  }

  pending(channel: ChannelName): { expiresAt: number } | undefined {
    const live = this.codes.get(channel);
    return live && this.now() < live.expiresAt ? { expiresAt: live.expiresAt } : undefined;
  }
}
