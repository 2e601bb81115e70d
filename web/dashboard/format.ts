// Times and counts as the page words them.

/** "just now", "5 min ago", "in 3 h", "in 2 days". */
export function relative(at: number, now = Date.now()): string {
  const diff = at - now;
  const abs = Math.abs(diff);
  const say = (n: number, unit: string) => (diff >= 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`);
  if (abs < 45_000) return diff >= 0 ? 'in a moment' : 'just now';
  if (abs < 3_600_000) return say(Math.round(abs / 60_000), 'min');
  if (abs < 86_400_000) return say(Math.round(abs / 3_600_000), 'h');
  const days = Math.round(abs / 86_400_000);
  return say(days, days === 1 ? 'day' : 'days');
}

/** A date and time in the person's locale, seconds included when they matter. */
export const dateTime = (at: number, seconds = false): string =>
  new Date(at).toLocaleString([], { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });

/** An ISO timestamp for <time datetime>. */
export const iso = (at: number): string => new Date(at).toISOString();

/** The value of a datetime-local input for a time (local, to the second). */
export function toLocalInput(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A datetime-local input's value as a time (NaN when it is not one). */
export const fromLocalInput = (value: string): number => (value ? new Date(value).getTime() : Number.NaN);
