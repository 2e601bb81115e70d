// A run's streamed output as this page knows it. Each `agent_output` chunk says where it starts in
// the run's whole output, and GET /api/runtime gives the output so far from offset 0; merging by
// offset lets a page opened mid-run (or reconnected) show the whole answer without doubling any part.

/** A stretch of the output: `text` starts at `start` (UTF-16 units) of the run's whole output. */
export interface Span {
  start: number;
  text: string;
}

/**
 * Merges a chunk into what is known. Overlaps are taken once; a chunk past a gap is still shown
 * (appended), because a live answer with a hole beats a frozen one, and `agent_done` brings the
 * complete text anyway.
 */
export function mergeSpan(have: Span, chunk: Span): Span {
  if (!have.text) return chunk;
  if (!chunk.text) return have;
  const haveEnd = have.start + have.text.length;
  const chunkEnd = chunk.start + chunk.text.length;
  if (chunk.start >= have.start && chunkEnd <= haveEnd) return have; // already known
  if (chunk.start <= have.start && chunkEnd >= haveEnd) return chunk; // covers all we had
  if (chunk.start >= have.start && chunk.start <= haveEnd) return { start: have.start, text: have.text + chunk.text.slice(haveEnd - chunk.start) };
  if (chunk.start < have.start && chunkEnd >= have.start) return { start: chunk.start, text: chunk.text + have.text.slice(chunkEnd - have.start) };
  // disjoint: keep both, in order
  return chunk.start > haveEnd ? { start: have.start, text: have.text + chunk.text } : { start: chunk.start, text: chunk.text + have.text };
}
