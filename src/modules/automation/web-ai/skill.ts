// The web-ai skill as the skills list shows it and the agent is told about it.
import type { BuiltInSkill } from '../../../protocol/skills.ts';

export const webAiSkill: BuiltInSkill = {
  info: {
    id: 'web-ai',
    name: 'Web AI',
    category: 'Automation',
    description: 'Ask a web chat assistant (ChatGPT, Gemini, Claude, Grok) in the controlled browser and take its code back as files.',
    command: '/web-ai',
    triggers: ['ask chatgpt', 'ask gemini', 'ask claude.ai', 'ask grok', 'second opinion from', '챗GPT에게 물어봐', '제미나이에게 물어봐'],
  },
  instructions: `- Web chat assistants in the controlled browser, logged in as the user (vendors: chatgpt, gemini, claude, grok):
  svc web-ai query <vendor> "<prompt>" [--file <path>] [--new]     ask and wait for the whole answer
  svc web-ai code <vendor> "<prompt>" [--save-to <dir>] [--overwrite]   ask for code: its blocks, optionally written under <dir> of the working directory
  svc web-ai send <vendor> "<prompt>" | poll <session> [--timeout ms] | stop | code-extract [<session>] | status <vendor> | sessions   (add --json for JSON)
  A NEEDS_LOGIN or CAPTCHA error means the user must log in (or pass the check) in a headed browser: tell them; never try to log in yourself.`,
};
