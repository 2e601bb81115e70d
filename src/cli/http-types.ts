// What the CLI's HTTP clients take and give: node:http's (src/cli/http-client.ts) and the one-shot
// exchange over node:net (src/cli/http1-exchange.ts).

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Gives up (and rejects) when no answer has begun after this long. */
  timeoutMs?: number;
  /** For an https URL: the SHA-256 fingerprint the server's certificate must have (src/core/tls.ts). */
  pin?: string;
}

export interface TextResponse {
  status: number;
  ok: boolean;
  text: string;
}
