// MCP and skills group: the skills and their ids.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { SkillInfoSchema, type BuiltInSkill } from '../../protocol/skills.ts';

export const skillRoutes: FastifyPluginAsync<{ skills: readonly BuiltInSkill[] }> = async (app, { skills }) => {
  defineRoutes(app, 'skills', [
    route({
      method: 'GET',
      url: '/api/skills',
      summary: 'The skills the agent can use, with their ids, commands and natural-language triggers.',
      response: z.object({ skills: z.array(SkillInfoSchema) }),
      handler: () => ({ skills: skills.map((s) => s.info) }),
    }),
  ]);
};
