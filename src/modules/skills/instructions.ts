// What provider CLIs are told about the service's skills. Their shell has `svc` on PATH (a shim in
// <home>/bin) and SVC_URL/SVC_HOME/SVC_BROWSER_PORT set, so these commands reach the same browser
// server and rules as the running service. Each skill brings its own lines.
import type { BuiltInSkill } from '../../protocol/skills.ts';

export function skillInstructions(skills: readonly BuiltInSkill[]): string {
  return [
    'You can automate a real web browser and HTTP traffic with the `svc` command in your shell:',
    ...skills.map((s) => s.instructions),
    'When the user asks about a web page (for example "open example.com and tell me the title"), use these commands.',
  ].join('\n');
}
