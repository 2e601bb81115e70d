// What the agent is told about memory in every run's system prompt: that it exists, and how to save to it
// from its shell (the `svc` shim is on its PATH and SVC_URL points at this server).
export const MEMORY_INSTRUCTIONS = [
  'svc keeps a memory across conversations: Markdown files (profile.md about the user, notes/ for decisions and',
  'projects, episodes/YYYY-MM-DD.md for what happened, procedures/ for how to do things). The parts relevant to this',
  'request are under "# Memory" below, when there are any. When the user tells you something worth remembering',
  '(a preference, a decision, how something is done), save it from your shell, never into the project:',
  "  svc memory save notes/<topic>.md <<'EOF'",
  '  ## <heading>',
  '  <what to remember, in a sentence or two>',
  '  EOF',
  'The text is appended; --mode section replaces the section with the same heading, --mode replace rewrites the file.',
  'Look things up with: svc memory search "<words>", then svc memory read <path> --lines 10-40.',
].join('\n');
