// The browser skill as the skills list shows it and the agent is told about it.
import type { BuiltInSkill } from '../../../protocol/skills.ts';

export const browserSkill: BuiltInSkill = {
  info: {
    id: 'browser',
    name: 'Browser',
    category: 'Automation',
    description: 'Drive a Chromium browser over CDP: open pages, click, type, extract, screenshot, ref snapshots.',
    command: '/browser',
    triggers: ['open page', 'screenshot', 'click', 'type', 'scrape', 'navigate', '페이지 열기', '스크린샷', '클릭'],
  },
  instructions: `- Browser (Chromium over CDP; starts on first use, keeps its tabs between commands):
  svc browser open <url> | snapshot [--diff] | click "<css|xpath=…|ref e12>" | type "<selector|ref>" "<text>" [--submit]
  svc browser extract "<selector>" text|html|attr:<name> [--all] | eval "<javascript>" | wait "<selector>"|--navigation|--idle
  svc browser screenshot [--full] | tabs | tab open|switch|close | console | network | fetch <url>
  Prefer \`snapshot\` (an accessibility tree with refs like e12) and act on refs; re-snapshot after the page changes.`,
};
