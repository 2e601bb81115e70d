// The /task command:
//   /task                      the open tasks
//   /task add <content> [--owner <name>] [--after <id>]...
//   /task done <id> | /task start <id> | /task clear
import { splitOptions, usageError, type SlashCommand } from '../../agent/commands.ts';
import { describeTask } from '../../protocol/goals-text.ts';
import type { TaskService } from './tasks.service.ts';

const USAGE = '/task [list] | add <content> [--owner <name>] [--after <id>] | start <id> | done <id> | clear';

export function taskCommand(tasks: TaskService): SlashCommand {
  return {
    name: 'task',
    usage: USAGE,
    description: 'The task list shared by goals and workers.',
    run(args) {
      const parsed = splitOptions(args);
      if (typeof parsed === 'string') throw usageError('task', USAGE);
      const [sub = 'list', ...rest] = parsed.words;
      const one = (s: string | undefined) => (s ? s : (() => { throw usageError('task', USAGE); })());
      switch (sub) {
        case 'list': {
          const open = tasks.list({}).tasks.filter((t) => t.status === 'pending' || t.status === 'in_progress');
          return open.length ? open.map(describeTask).join('\n') : 'no open tasks';
        }
        case 'add': {
          const result = tasks.act({ action: 'add', content: one(rest.join(' ')), owner: parsed.options.get('owner')?.[0], after: parsed.options.get('after') });
          return 'task' in result ? `added ${describeTask(result.task)}` : '';
        }
        case 'start':
        case 'done': {
          const result = sub === 'done' ? tasks.act({ action: 'done', id: one(rest[0]) }) : tasks.act({ action: 'update', id: one(rest[0]), status: 'in_progress' });
          return 'task' in result ? describeTask(result.task) : '';
        }
        case 'clear': {
          const result = tasks.act({ action: 'clear' });
          return 'removed' in result ? `removed ${result.removed} finished task(s)` : '';
        }
        default:
          throw usageError('task', USAGE);
      }
    },
  };
}
