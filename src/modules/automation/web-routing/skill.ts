// The web-routing skill as the skills list shows it and the agent is told about it.
import type { BuiltInSkill } from '../../../protocol/skills.ts';

export const webRoutingSkill: BuiltInSkill = {
  info: {
    id: 'web-routing',
    name: 'Web routing',
    category: 'Automation',
    description: 'Intercept HTTP requests with rules: redirect, rewrite, block, mock, transform.',
    command: '/web-routing',
    triggers: ['mock the api', 'block requests to', 'redirect requests', 'API 모킹', '요청 차단'],
  },
  instructions: '- HTTP interception rules (redirect, rewrite, block, mock, transform): svc web-routing help',
};
