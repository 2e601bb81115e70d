// vision-click over HTTP. Thin: validate the body (its fields mirror the slash command's flags), run the
// VisionClickService, return its result. Errors are AppErrors rendered by the server's error handler:
// 400 INVALID_REQUEST / VALIDATION_FAILED / INVALID_COMMAND_ARGS / INVALID_REGION, 404 TARGET_NOT_FOUND and
// 422 LOW_CONFIDENCE (nothing clicked; the body says what was seen), 501 UNSUPPORTED_PLATFORM,
// 502/503/504 from the browser, the desktop tools or the vision model.
//
//   POST /api/vision-click
//     {description, action?: click|double|right|hover|describe  (or one of double/right/hover/describe: true),
//      target?: browser|desktop, region?: {x,y,width,height} | "x,y,w,h", locator?: ocr|openai|cli,
//      minConfidence?: 0..1, tab?: "t1", dryRun?: bool}
//     or {command: "/vision-click --right \"Save\""}
//   → 200 {action, target, locator, found, acted, point, box, confidence, label?, screenshot?, mapping, imageBox, ms}
//     (describe: {action: "describe", description, screenshot?, …})
import { z } from 'zod';
import { badRequest } from '../../../core/errors.ts';
import { routeGroup, route } from '../../../http/routes.ts';
import { parseVisionClickCommand, VISION_CLICK_HELP, type VisionRunner } from './commands.ts';
import { parseRegion } from './geometry.ts';
import { VISION_LOCATORS, VISION_TARGETS } from './settings.ts';
import { BoxSchema, MAX_DESCRIPTION, VISION_ACTIONS, VisionResultSchema, type VisionAction, type VisionRequest } from './types.ts';

export const VisionClickBody = z.strictObject({
  command: z.string().trim().min(1).max(10_000).optional(),
  description: z.string().trim().max(MAX_DESCRIPTION).optional(),
  action: z.enum(VISION_ACTIONS).optional(),
  double: z.boolean().optional(),
  right: z.boolean().optional(),
  hover: z.boolean().optional(),
  describe: z.boolean().optional(),
  target: z.enum(VISION_TARGETS).optional(),
  region: z.union([BoxSchema, z.string().max(100)]).optional(),
  locator: z.enum(VISION_LOCATORS).optional(),
  minConfidence: z.number().min(0).max(1).optional(),
  tab: z
    .string()
    .regex(/^t\d{1,9}$/, 'a tab id looks like t1')
    .optional(),
  dryRun: z.boolean().optional(),
});
export type VisionClickBody = z.infer<typeof VisionClickBody>;

/** The typed request a body stands for (400 when its fields contradict each other). */
export function requestFromBody(body: VisionClickBody): VisionRequest {
  if (body.command !== undefined) {
    const others = Object.keys(body).filter((k) => k !== 'command');
    if (others.length) throw badRequest('INVALID_REQUEST', `"command" stands alone; drop ${others.map((k) => `"${k}"`).join(', ')} or put them in the command as flags.`);
    const parsed = parseVisionClickCommand(body.command);
    if (parsed.help) throw badRequest('INVALID_REQUEST', VISION_CLICK_HELP);
    return parsed.request;
  }
  const flagged = (['double', 'right', 'hover', 'describe'] as const).filter((k) => body[k]);
  if (flagged.length > 1) throw badRequest('INVALID_REQUEST', `Pick one action, not ${flagged.join(' and ')}.`);
  let action: VisionAction = body.action ?? flagged[0] ?? 'click';
  if (body.action && flagged[0] && flagged[0] !== body.action) throw badRequest('INVALID_REQUEST', `"action": "${body.action}" contradicts "${flagged[0]}": true.`);
  if (flagged[0]) action = flagged[0];
  let region: VisionRequest['region'];
  if (typeof body.region === 'string') {
    try {
      region = parseRegion(body.region);
    } catch (err) {
      throw badRequest('INVALID_REGION', (err as Error).message, { field: 'region' });
    }
  } else region = body.region;
  if (action !== 'describe' && !body.description) throw badRequest('VALIDATION_FAILED', 'body field \'description\': say what to find, e.g. "Sign in"', { field: 'description' });
  return {
    action,
    ...(body.description ? { description: body.description } : {}),
    ...(body.target ? { target: body.target } : {}),
    ...(region ? { region } : {}),
    ...(body.locator ? { locator: body.locator } : {}),
    ...(body.minConfidence !== undefined ? { minConfidence: body.minConfidence } : {}),
    ...(body.tab ? { tab: body.tab } : {}),
    ...(body.dryRun ? { dryRun: true } : {}),
  };
}

export const visionClickRoutes = routeGroup('vision-click', ({ service }: { service: VisionRunner }) => {
  return [
    route({
      method: 'POST',
      url: '/api/vision-click',
      errors: [404, 409, 413, 422, 501, 502, 504],
      summary: 'Finds a target in a screenshot (browser page or X11 desktop) by OCR or a vision model and clicks, double/right-clicks, hovers or describes.',
      body: VisionClickBody,
      response: VisionResultSchema,
      handler: ({ body }) => service.run(requestFromBody(body)),
    }),
  ];
});
