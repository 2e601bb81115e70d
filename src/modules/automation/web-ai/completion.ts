// When an answer is complete (pure): a new assistant message has appeared since the prompt was sent,
// the stop button is gone, and the answer's text has not changed for the profile's stableMs. Each look at
// the page is a Sample; Progress carries what earlier looks saw.

export interface Sample {
  /** Assistant messages on the page now. */
  count: number;
  /** The text of each message from the session's baseline on. */
  texts: string[];
  stopVisible: boolean;
}

export interface Progress {
  text: string;
  /** When the text last changed (ms). */
  changedAt: number;
  complete: boolean;
  /** Messages of the answer once complete: [baseline, end). */
  end?: number;
}

export const joinAnswer = (texts: readonly string[]): string =>
  texts
    .map((t) => t.trim())
    .filter(Boolean)
    .join('\n\n');

export function advance(prev: Progress, baseline: number, sample: Sample, now: number, stableMs: number): Progress {
  const text = sample.count > baseline ? joinAnswer(sample.texts) : '';
  const changedAt = text === prev.text ? prev.changedAt : now;
  const complete = sample.count > baseline && !sample.stopVisible && text !== '' && now - changedAt >= stableMs;
  return { text, changedAt, complete, ...(complete ? { end: sample.count } : {}) };
}
