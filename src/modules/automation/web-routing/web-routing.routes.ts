// web-routing rules over HTTP. Thin: validate, call the RuleService, map the result. Errors are AppErrors
// (400 INVALID_RULE / INVALID_PATTERN / INVALID_MOCK_BODY / INVALID_TARGET / INVALID_HEADER / INVALID_STATUS /
// INVALID_TRANSFORM / INVALID_COMMAND / INVALID_OPTION, 404 NOT_FOUND) rendered by the server's error handler.
import { z } from 'zod';
import { badRequest } from '../../../core/errors.ts';
import { routeGroup, route } from '../../../http/routes.ts';
import { runWebRoutingCommand } from './commands.ts';
import { toMatchRequest } from './pattern.ts';
import { RULE_TYPES, ruleInputSchema } from './rules.ts';
import type { RuleService } from './web-routing.service.ts';

const commandBody = z.object({ command: z.string().min(1).max(20_000) }).strict();
const matchBody = z
  .object({
    url: z.string().min(1),
    method: z.string().min(1).max(20).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.string().optional(),
  })
  .strict();

/** A stored rule: its id and creation time, and the fields of its type (see the rule input of POST /api/web-routing/rules). */
const RuleSchema = z.looseObject({ id: z.number().int(), createdAt: z.string(), type: z.enum(RULE_TYPES), pattern: z.string() });

export const webRoutingRoutes = routeGroup('web-routing', ({ rules }: { rules: RuleService }) => {
  return [
    route({
      method: 'GET',
      url: '/api/web-routing/rules',
      summary: 'The interception rules, and stored rules that no longer compile (skipped, with the reason).',
      response: z.object({ rules: z.array(RuleSchema), invalid: z.array(z.object({ rule: RuleSchema, error: z.string() })) }),
      handler: () => ({ rules: rules.list(), invalid: [...rules.invalidRules()] }),
    }),
    route({
      method: 'POST',
      url: '/api/web-routing/rules',
      summary: 'Adds a rule, given as a structured rule or as a `/web-routing …` command (which may also list, remove or clear).',
      body: z.union([commandBody, ruleInputSchema]),
      // checked here, so each form fails with its own code (INVALID_COMMAND, INVALID_RULE, …)
      validateBody: false,
      response: z.looseObject({ text: z.string().optional(), rule: RuleSchema.optional() }),
      handler: async ({ body, reply }) => {
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          throw badRequest('INVALID_RULE', 'Send a JSON object: {"command": "/web-routing …"} or {"type": …, "pattern": …}.');
        }
        if ('command' in body) {
          const parsed = commandBody.safeParse(body);
          if (!parsed.success) throw badRequest('INVALID_COMMAND', '"command" must be a non-empty string and the only field.');
          const result = await runWebRoutingCommand(parsed.data.command, rules);
          const data = (result.data ?? {}) as Record<string, unknown>;
          reply.code('rule' in data ? 201 : 200);
          return { text: result.text, ...data };
        }
        const rule = rules.add(body);
        reply.code(201);
        return { rule };
      },
    }),
    route({
      method: 'DELETE',
      url: '/api/web-routing/rules/:id',
      summary: 'Removes a rule by id.',
      params: z.object({ id: z.string() }),
      response: z.object({ removed: RuleSchema }),
      handler: ({ params }) => {
        if (!/^\d{1,15}$/.test(params.id)) throw badRequest('INVALID_ID', `A rule id is a positive integer, not '${params.id}'.`);
        return { removed: rules.remove(Number(params.id)) };
      },
    }),
    route({
      method: 'POST',
      url: '/api/web-routing/match',
      summary: 'A dry run: what the rules would do with a request (the plan, and every rule that matches).',
      body: matchBody,
      response: z.object({
        plan: z.looseObject({ action: z.string() }),
        matches: z.array(z.object({ id: z.number().int(), type: z.enum(RULE_TYPES), pattern: z.string(), params: z.record(z.string(), z.string()) })),
      }),
      handler: ({ body: { url, method = 'GET', headers = {}, body } }) => {
        let req;
        try {
          req = toMatchRequest(method, url, headers);
        } catch {
          throw badRequest('INVALID_URL', `'${url}' is not an absolute URL.`);
        }
        const set = rules.current();
        const plan = set.plan(req);
        const shown = plan.action === 'mock' ? { ...plan, body: plan.body(body) } : plan;
        return {
          plan: shown,
          matches: set.matchAll(req).map((m) => ({ id: m.rule.id, type: m.rule.type, pattern: m.rule.pattern, params: m.captures.params })),
        };
      },
    }),
  ];
});
