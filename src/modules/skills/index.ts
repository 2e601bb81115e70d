// The skills module: the registry (built-in, <home>/skills, added by path or npm), its routes, the
// /skills command, and what the agent is told about enabled skills.
export { skillInstructions } from './instructions.ts';
export { SkillRegistry, type SkillRegistryDeps } from './registry.ts';
export { SkillsRepo } from './skills.repo.ts';
export { parseSkillMd } from './frontmatter.ts';
export { skillsCommand } from './skills.commands.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadSkillRoutes = () => import('./skills.routes.ts').then((m) => m.skillRoutes);
