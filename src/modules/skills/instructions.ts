// What provider CLIs are told about the skills. Their shell has `svc` on PATH (a shim in
// <home>/bin) and SVC_URL/SVC_HOME/SVC_BROWSER_PORT set, so the built-in skills' commands reach the
// same browser server and rules as the running service; each brings its own lines. Skills with a
// directory are listed with the path of their SKILL.md, which the agent reads when one applies.
import type { BuiltInSkill, RunSkill } from '../../protocol/skills.ts';

export function skillInstructions(builtIns: readonly BuiltInSkill[], dirs: readonly RunSkill[] = []): string {
  const parts: string[] = [];
  if (builtIns.length) {
    parts.push(
      'You can automate a real web browser and HTTP traffic with the `svc` command in your shell:',
      ...builtIns.map((s) => s.instructions),
      'When the user asks about a web page (for example "open example.com and tell me the title"), use these commands.',
    );
  }
  if (dirs.length) {
    parts.push(
      'Skills are available: when a task matches one, read its SKILL.md first and follow it (its other files are beside it).',
      ...dirs.map((s) => `- ${s.name} (${s.id}): ${s.description} — ${s.dir}/SKILL.md`),
    );
  }
  return parts.join('\n');
}
