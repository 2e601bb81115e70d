// The /skills slash command.
//   /skills                 the list, with enabled flags and unmet requirements
//   /skills enable <id>     /skills disable <id>
//   /skills show <id>       the SKILL.md
import { badRequest } from '../../core/errors.ts';
import type { SlashCommand } from '../../agent/commands.ts';
import type { SkillRegistry } from './registry.ts';

const USAGE = '/skills [list | show <id> | enable <id> | disable <id>]';

export function skillsCommand(skills: SkillRegistry): SlashCommand {
  return {
    name: 'skills',
    usage: USAGE,
    description: 'List the skills, read one, enable or disable it for the next runs.',
    run(args, { caller }) {
      const [sub = 'list', id, ...extra] = args.split(/\s+/).filter(Boolean);
      if (sub === 'list' && !id) {
        return skills
          .list()
          .map((s) => {
            const missing = [...s.missing.bins, ...s.missing.env];
            return `${s.enabled ? '✓' : '·'} ${s.id} (${s.source}) — ${s.description}${missing.length ? ` [missing: ${missing.join(', ')}]` : ''}`;
          })
          .join('\n');
      }
      if (!id || extra.length) throw badRequest('INVALID_COMMAND_ARGS', `Usage: ${USAGE}`, { command: 'skills' });
      if (sub === 'show') return skills.get(id).markdown;
      if (sub === 'enable' || sub === 'disable') {
        const skill = skills.setEnabled(id, sub === 'enable', caller.kind === 'agent' ? 'agent' : 'user');
        return `${skill.id} is ${skill.enabled ? 'enabled' : 'disabled'} for the next runs`;
      }
      throw badRequest('INVALID_COMMAND_ARGS', `Usage: ${USAGE}`, { command: 'skills' });
    },
  };
}
