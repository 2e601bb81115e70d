// The automation skills (spec §1): their ids, category and what they are for. GET /api/skills lists them.
export interface SkillInfo {
  id: string;
  name: string;
  category: 'Automation';
  description: string;
  command: string;
  /** Natural-language triggers, English and Korean (the spec allows either). */
  triggers: string[];
}

export const SKILLS: readonly SkillInfo[] = [
  {
    id: 'browser',
    name: 'Browser',
    category: 'Automation',
    description: 'Drive a Chromium browser over CDP: open pages, click, type, extract, screenshot, ref snapshots.',
    command: '/browser',
    triggers: ['open page', 'screenshot', 'click', 'type', 'scrape', 'navigate', '페이지 열기', '스크린샷', '클릭'],
  },
  {
    id: 'vision-click',
    name: 'Vision click',
    category: 'Automation',
    description: 'Find a target on screen from a screenshot with a vision model (or OCR) and click it.',
    command: '/vision-click',
    triggers: ['click the button that looks like', 'vision click', '화면에서 클릭', '보이는 버튼 클릭'],
  },
  {
    id: 'web-routing',
    name: 'Web routing',
    category: 'Automation',
    description: 'Intercept HTTP requests with rules: redirect, rewrite, block, mock, transform.',
    command: '/web-routing',
    triggers: ['mock the api', 'block requests to', 'redirect requests', 'API 모킹', '요청 차단'],
  },
];
