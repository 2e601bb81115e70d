// The vision-click skill as the skills list shows it and the agent is told about it.
import type { BuiltInSkill } from '../../../protocol/skills.ts';

export const visionClickSkill: BuiltInSkill = {
  info: {
    id: 'vision-click',
    name: 'Vision click',
    category: 'Automation',
    description: 'Find a target on screen from a screenshot with a vision model (or OCR) and click it.',
    command: '/vision-click',
    triggers: ['click the button that looks like', 'vision click', '화면에서 클릭', '보이는 버튼 클릭'],
  },
  instructions: '- Vision click (screenshot + model, for canvas or desktop UIs): svc vision-click "<what to click>" [--double|--right|--hover|--describe]',
};
