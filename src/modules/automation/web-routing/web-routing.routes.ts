// web-routing rules over HTTP. Thin: validate, call the RuleService, map the result. Errors are ApiErrors
// (400 INVALID_RULE / INVALID_PATTERN / INVALID_MOCK_BODY / INVALID_TARGET / INVALID_HEADER / INVALID_STATUS /
// INVALID_TRANSFORM / INVALID_COMMAND / INVALID_OPTION, 404 NOT_FOUND) rendered by the server's error handler.
//
//   GET    /api/web-routing/rules          → 200 {rules: Rule[], invalid: [{rule, error}]}
//   POST   /api/web-routing/rules          body {command: "/web-routing …"} → {text, …data}: 201 with {rule} when a
//                                          rule was added, else 200 ({rules} for list, {removed} for remove/clear);
//                                          or a structured rule {type, pattern, …} → 201 {rule}
//   DELETE /api/web-routing/rules/:id      → 200 {removed: Rule} | 404
//   POST   /api/web-routing/match          body {url, method?, headers?} → 200 {plan, matches}: a dry run showing
//                                          what the rules would do with that request
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { parseInput } from '../validate.ts';
import { runWebRoutingCommand } from '../../skills/web-routing/commands.ts';
import { toMatchRequest } from '../../skills/web-routing/pattern.ts';
import type { RuleService } from '../../skills/web-routing/service.ts';

const commandBody = z.object({ command: z.string().min(1).max(20_000) }).strict();
const matchBody = z
  .object({
    url: z.string().min(1),
    method: z.string().min(1).max(20).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.string().optional(),
  })
  .strict();

export function webRoutingRoutes(deps: { rules: RuleService }) {
  const { rules } = deps;
  // Registers synchronously, like the other route modules: `webRoutingRoutes({ rules })(app)`.
  return (app: FastifyInstance): void => {
    app.get('/api/web-routing/rules', async () => ({
      rules: rules.list(),
      invalid: rules.invalidRules(),
    }));

    app.post('/api/web-routing/rules', async (request, reply) => {
      const body = request.body;
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
    });

    app.delete<{ Params: { id: string } }>('/api/web-routing/rules/:id', async (request) => {
      const id = request.params.id;
      if (!/^\d{1,15}$/.test(id)) throw badRequest('INVALID_ID', `A rule id is a positive integer, not '${id}'.`);
      return { removed: rules.remove(Number(id)) };
    });

    app.post('/api/web-routing/match', async (request) => {
      const { url, method = 'GET', headers = {}, body } = parseInput(matchBody, request.body, 'body');
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
    });
  };
}
