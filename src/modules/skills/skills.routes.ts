// MCP and skills group: the skills registry (list, read, enable, install).
import { z } from 'zod';
import { NPM_INSTALL_TIMEOUT_MS } from '../../core/npm.ts';
import { routeGroup, route } from '../../http/routes.ts';
import { SkillDetailSchema, SkillIdSchema, SkillSchema } from '../../protocol/skills.ts';
import type { SkillRegistry } from './registry.ts';

export interface SkillRouteDeps {
  skills: SkillRegistry;
  /** Who a request comes from, for the audit log. */
  actorOf(address: string | undefined): string;
}

export const skillRoutes = routeGroup('skills', ({ skills, actorOf }: SkillRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/skills',
      summary: 'Every skill (built-in, <home>/skills, added from a path or npm) with its source, enabled flag, requirements and whether they are met.',
      response: z.object({ skills: z.array(SkillSchema) }),
      handler: () => ({ skills: skills.list() }),
    }),
    route({
      method: 'GET',
      url: '/api/skills/:id',
      summary: 'One skill and the text of its SKILL.md.',
      params: z.object({ id: SkillIdSchema }),
      response: SkillDetailSchema,
      handler: ({ params }) => skills.get(params.id),
    }),
    route({
      method: 'POST',
      url: '/api/skills/enable',
      errors: [404],
      summary: 'Enables or disables a skill for the next runs (nothing is copied or deleted).',
      body: z.strictObject({ id: SkillIdSchema, enabled: z.boolean().default(true) }),
      response: z.object({ skill: SkillSchema }),
      handler: ({ body, request }) => ({ skill: skills.setEnabled(body.id, body.enabled, actorOf(request.socket.remoteAddress)) }),
    }),
    route({
      method: 'POST',
      url: '/api/skills/install',
      errors: [502, 504],
      waitsOn: { what: 'npm', ms: NPM_INSTALL_TIMEOUT_MS + 10_000 },
      summary: 'Adds a skill directory by reference ({path}), or installs an npm package into <home>/skills-npm ({package}); enabled at once.',
      body: z.strictObject({
        path: z.string().min(1).max(4096).refine((p) => p.startsWith('/'), 'an absolute path').optional(),
        package: z.string().min(1).max(500).optional(),
      }),
      response: z.object({ skill: SkillSchema }),
      handler: async ({ body, request }) => ({ skill: await skills.install(body, actorOf(request.socket.remoteAddress)) }),
    }),
  ];
});
