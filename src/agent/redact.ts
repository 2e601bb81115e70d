// Removes secrets from text that is about to be written to a trace file. Token counts and session
// ids are kept on purpose: they are what a trace is read for.
export const REDACTED_MARK = '[REDACTED]';

const RULES: [RegExp, string][] = [
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED_MARK}`],
  [/\bsk-(?:ant-)?[A-Za-z0-9_-]{8,}/g, REDACTED_MARK], // Anthropic / OpenAI style keys
  [/\bAIza[0-9A-Za-z_-]{20,}/g, REDACTED_MARK], // Google API keys
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED_MARK], // GitHub tokens
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED_MARK], // Slack tokens
  [/("(?:api[_-]?key|authorization|x-api-key|x-goog-api-key|password|secret|access[_-]?token|refresh[_-]?token)"\s*:\s*")[^"]*(")/gi, `$1${REDACTED_MARK}$2`],
  [/\b((?:[A-Z0-9_]*_)?(?:API_KEY|TOKEN|SECRET|PASSWORD))=\S+/g, `$1=${REDACTED_MARK}`],
];

/** Redacts every exact value in `secrets` (configured API keys, MCP servers' env and headers). */
export function redactValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 6) out = out.split(secret).join(REDACTED_MARK);
  }
  return out;
}

/** Redacts known secret shapes, plus every exact value in `secrets`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = redactValues(text, secrets);
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
