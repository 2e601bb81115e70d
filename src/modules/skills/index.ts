// The skills module: the list of skills (GET /api/skills) and what the agent is told about them.
export { skillRoutes } from './skills.routes.ts';
export { skillInstructions } from './instructions.ts';
