// The rules as seen from another process (the browser server): fetched from the core server, which
// owns them, and refreshed every second. A request in between uses the last rule set it fetched.
// node:http(s) rather than fetch: a core server on HTTPS is reached with its certificate pinned
// (src/core/tls.ts), which fetch cannot do.
import { compileRuleSet, type Rule, type RuleSet, type RuleSource } from './rules.ts';

export const RULES_REFRESH_MS = 1000;

export class RemoteRuleSource implements RuleSource {
  private set: RuleSet = compileRuleSet([]);
  private lastJson = '[]';
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly coreUrl: string,
    private readonly onError: (err: unknown) => void = () => {},
    /** The fingerprint of the core server's certificate, when it serves HTTPS. */
    private readonly pin?: string,
  ) {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), RULES_REFRESH_MS);
    this.timer.unref();
  }

  current(): RuleSet {
    return this.set;
  }

  async refresh(): Promise<void> {
    try {
      const answer = await getText(new URL(`${this.coreUrl.replace(/\/+$/, '')}/api/web-routing/rules`), this.pin);
      if (answer === undefined) return;
      const { rules } = JSON.parse(answer) as { rules: Rule[] };
      const json = JSON.stringify(rules);
      if (json === this.lastJson) return;
      // rules the core stored are valid; one that no longer compiles is skipped, as the core does
      this.set = compileRuleSet(rules, (rule, err) => this.onError(new Error(`rule #${rule.id}: ${(err as Error).message}`)));
      this.lastJson = json;
    } catch (err) {
      this.onError(err);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The body of a 200 answer, undefined for any other status; rejects when the server does not answer in 2 s. */
async function getText(url: URL, pin: string | undefined): Promise<string | undefined> {
  // loaded here, not with the module: every `svc serve` loads it, and only the browser server asks
  const [{ connectionOptions }, client] = await Promise.all([import('../../../core/tls.ts'), url.protocol === 'https:' ? import('node:https') : import('node:http')]);
  return new Promise((resolve, reject) => {
    const request = client.get(url, { ...connectionOptions(url, pin), signal: AbortSignal.timeout(2000) }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return resolve(undefined);
      }
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}
