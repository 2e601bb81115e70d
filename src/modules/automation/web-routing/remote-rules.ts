// The rules as seen from another process (the browser server): fetched from the core server, which
// owns them, and refreshed every second. A request in between uses the last rule set it fetched.
import { compileRuleSet, type Rule, type RuleSet, type RuleSource } from './rules.ts';

export const RULES_REFRESH_MS = 1000;

export class RemoteRuleSource implements RuleSource {
  private set: RuleSet = compileRuleSet([]);
  private lastJson = '[]';
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly coreUrl: string, private readonly onError: (err: unknown) => void = () => {}) {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), RULES_REFRESH_MS);
    this.timer.unref();
  }

  current(): RuleSet {
    return this.set;
  }

  async refresh(): Promise<void> {
    try {
      const response = await fetch(`${this.coreUrl.replace(/\/+$/, '')}/api/web-routing/rules`, { signal: AbortSignal.timeout(2000) });
      if (!response.ok) return;
      const { rules } = (await response.json()) as { rules: Rule[] };
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
