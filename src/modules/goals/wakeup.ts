// Wakeup delays and Claude Code's own ScheduleWakeup tool call, read as plain values.
import { badRequest } from '../../core/errors.ts';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "90s", "10m", "2h", "1d", "1h30m" or a bare number of seconds → seconds. */
export function parseDelay(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== trimmed) throw badRequest('INVALID_DELAY', `'${text}' is not a delay: write e.g. 90s, 10m, 2h or 1d.`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]!]!, 0);
}

/** The input of a ScheduleWakeup tool call ({delaySeconds, prompt, reason}), if it is one. */
export function scheduleWakeupCall(name: string, input: Record<string, unknown>): { delaySeconds: number; prompt: string; reason?: string } | undefined {
  if (name !== 'ScheduleWakeup') return undefined;
  const { delaySeconds, prompt, reason } = input;
  if (typeof delaySeconds !== 'number' || typeof prompt !== 'string') return undefined;
  return { delaySeconds, prompt, ...(typeof reason === 'string' ? { reason } : {}) };
}
