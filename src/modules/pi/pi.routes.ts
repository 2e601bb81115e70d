// Settings and runtime group: Pi's model endpoints (profiles) in svc's own Pi configuration directory.
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import { DISCOVERY_TIMEOUT_MS, PI_MODES, type PiProfiles } from './profiles.ts';

const ProfileId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, "_" and "-" (at most 40)');
const PiProfileSchema = z.object({
  id: z.string(),
  label: z.string(),
  mode: z.enum(PI_MODES),
  endpoint: z.string(),
  model: z.string().optional(),
  apiKey: z.string().describe('*** when set'),
  models: z.array(z.string()),
});

export const piRoutes = routeGroup('pi', ({ profiles }: { profiles: PiProfiles }) => {
  return [
    route({
      method: 'GET',
      url: '/api/pi/profiles',
      summary: 'The model endpoints registered for Pi (API keys masked); pick a model as <profile>/<model>.',
      response: z.object({ profiles: z.array(PiProfileSchema) }),
      handler: () => ({ profiles: profiles.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/pi/profiles/register',
      errors: [502],
      waitsOn: { what: 'the model endpoint', ms: DISCOVERY_TIMEOUT_MS + 5_000 },
      summary: 'Registers (or replaces) a model endpoint for Pi in svc\'s own Pi configuration after listing its models; nothing is saved when that fails (502).',
      body: z.strictObject({
        id: ProfileId,
        label: z.string().min(1).max(100),
        mode: z.enum(PI_MODES),
        endpoint: z.string().min(1).max(2000),
        model: z.string().min(1).max(200).optional(),
        apiKey: z.string().max(4000).optional(),
      }),
      response: z.object({ profile: PiProfileSchema, models: z.array(z.string()) }),
      handler: ({ body }) => profiles.register(body),
    }),
    route({
      method: 'DELETE',
      url: '/api/pi/profiles/:id',
      summary: 'Removes a Pi profile.',
      params: z.object({ id: ProfileId }),
      response: z.object({ ok: z.literal(true) }),
      handler: ({ params }) => {
        profiles.remove(params.id);
        return { ok: true as const };
      },
    }),
  ];
});
