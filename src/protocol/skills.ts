// Skills on the wire (GET /api/skills, GET /api/skills/:id) and the built-in skills' declarations.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/** A built-in skill's own description: its slash command and natural-language triggers. */
export const SkillInfoSchema = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  category: z.string(),
  description: z.string(),
  /** The slash command that runs it. */
  command: z.string(),
  /** Natural-language triggers, English and Korean (the spec allows either). */
  triggers: z.array(z.string()),
}));
export type SkillInfo = z.infer<typeof SkillInfoSchema>;

/** A skill built into svc: what GET /api/skills shows, and the lines the agent's instructions give it. */
export interface BuiltInSkill {
  info: SkillInfo;
  /** Lines of the agent's instructions that say how to use it from the shell. */
  instructions: string;
}

/** Where a skill comes from: built into svc, a directory under <home>/skills, a local path or an npm package. */
export const SKILL_SOURCES = ['built-in', 'home', 'path', 'npm'] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

/** Lower-case letters, digits, ".", "_" and "-", starting with a letter or digit; never "..". */
export const SKILL_ID_PATTERN = /^(?!.*\.\.)[a-z0-9][a-z0-9._-]{0,63}$/;
export const SkillIdSchema = lazySchema(() => z.string().regex(SKILL_ID_PATTERN, 'a skill id: lower-case letters, digits, ".", "_" and "-" (no "..")'));

const Requirements = lazySchema(() => z.object({ bins: z.array(z.string()), env: z.array(z.string()) }));

export const SkillSchema = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  source: z.enum(SKILL_SOURCES),
  enabled: z.boolean(),
  /** The skill's directory (absent for built-in skills, which live in svc itself). */
  path: z.string().optional(),
  /** Built-in skills: the slash command and natural-language triggers. */
  command: z.string().optional(),
  triggers: z.array(z.string()).optional(),
  /** What it needs: binaries on PATH and environment variables (of the provider CLIs' environment). */
  requirements: Requirements,
  met: z.boolean(),
  missing: Requirements,
}));
export type Skill = z.infer<typeof SkillSchema>;

export const SkillDetailSchema = lazySchema(() => z.object({ skill: SkillSchema, markdown: z.string() }));

/** An enabled skill with a directory, as a run gets it. */
export interface RunSkill {
  id: string;
  name: string;
  description: string;
  /** The skill's directory (with its SKILL.md). */
  dir: string;
}
