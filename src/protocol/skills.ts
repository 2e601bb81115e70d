// Skills on the wire (GET /api/skills).
import { z } from 'zod';

export const SkillInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  category: z.string(),
  description: z.string(),
  /** The slash command that runs it. */
  command: z.string(),
  /** Natural-language triggers, English and Korean (the spec allows either). */
  triggers: z.array(z.string()),
});
export type SkillInfo = z.infer<typeof SkillInfoSchema>;

/** A skill built into svc: what GET /api/skills shows, and the lines the agent's instructions give it. */
export interface BuiltInSkill {
  info: SkillInfo;
  /** Lines of the agent's instructions that say how to use it from the shell. */
  instructions: string;
}
