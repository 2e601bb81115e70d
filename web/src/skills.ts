// The skills panel's side of the API (GET /api/skills, GET /api/skills/:id, POST /api/skills/enable) and
// whether the panel is open. Wire types come from src/protocol/skills.ts, like the server's.
import { get, post } from './api.ts';
import { createPanel } from './panel.ts';
import type { Skill } from '../../src/protocol/skills.ts';

export type { Skill };

export const skillsApi = {
  list: () => get<{ skills: Skill[] }>('/api/skills'),
  read: (id: string) => get<{ skill: Skill; markdown: string }>(`/api/skills/${encodeURIComponent(id)}`),
  enable: (id: string, enabled: boolean) => post<{ skill: Skill }>('/api/skills/enable', { id, enabled }),
};

const panel = createPanel();
export const openSkills = panel.open;
export const closeSkills = panel.close;
export const useSkillsOpen = panel.useOpen;
