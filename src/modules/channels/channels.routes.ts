// Chat channels over HTTP: their state, restart, pairing, and the outbound send (spec §9: /api/channel/send
// is canonical; /api/chatappa/send and /api/chatappb/send are the same with the channel fixed).
import { z } from 'zod';
import { routeGroup, noBody, route } from '../../http/routes.ts';
import { CHANNELS, ChannelSendBodySchema, ChannelSendResultSchema, ChannelStateSchema, PairingCodeSchema } from '../../protocol/channels.ts';
import type { ChannelService } from './channels.service.ts';

/** A send waits on the chat service (its retries after a rate limit included): past this, 504. */
const SENDING = { what: 'the chat service', ms: 60_000 };

export interface ChannelRouteDeps {
  channels: ChannelService;
  /** Who a request comes from, for the audit log (`local`, `remote:<address>`). */
  actorOf(address: string | undefined): string;
}

const params = z.strictObject({ name: z.enum(CHANNELS) });
const fixedBody = ChannelSendBodySchema.omit({ channel: true });

export const channelRoutes = routeGroup('channels', ({ channels, actorOf }: ChannelRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/channels',
      summary: 'Each chat channel: enabled, token set (never the token), connected, bot name, last error, allowlist, counts.',
      response: z.object({ channels: z.array(ChannelStateSchema) }),
      handler: () => ({ channels: channels.states() }),
    }),
    route({
      method: 'POST',
      url: '/api/channels/:name/restart',
      summary: 'Disconnects the channel and connects it again with the current settings: answers at once (202) with its state (connecting); the outcome comes as the event channel_connected or channel_disconnected.',
      params,
      body: noBody,
      status: 202,
      response: ChannelStateSchema,
      handler: ({ params, request }) => channels.requestRestart(params.name, actorOf(request.socket.remoteAddress)),
    }),
    route({
      method: 'POST',
      url: '/api/channels/:name/pair',
      summary: 'A one-time pairing code (ten minutes, one use): sent to the bot from a chat, it adds that chat to the allowlist.',
      params,
      body: noBody,
      response: PairingCodeSchema,
      handler: ({ params, request }) => {
        const { code, expiresAt } = channels.issuePairingCode(params.name, actorOf(request.socket.remoteAddress));
        return { channel: params.name, code, expiresAt, instructions: `Send ${code} (or /pair ${code}) to the bot from the chat to add, within ten minutes.` };
      },
    }),
    route({
      method: 'POST',
      url: '/api/channel/send',
      errors: [403, 404, 409, 413, 502],
      waitsOn: SENDING,
      summary: 'Sends text, a photo, a document or a voice note to a chat on the allowlist of `channel` (telegram, discord, or active); answers the message id.',
      body: ChannelSendBodySchema,
      response: ChannelSendResultSchema,
      handler: ({ body, request }) => channels.send(body, actorOf(request.socket.remoteAddress)),
    }),
    route({
      method: 'POST',
      url: '/api/chatappa/send',
      errors: [403, 404, 409, 413, 502],
      waitsOn: SENDING,
      summary: 'POST /api/channel/send with the channel fixed to Telegram.',
      body: fixedBody,
      response: ChannelSendResultSchema,
      handler: ({ body, request }) => channels.send({ ...body, channel: 'telegram' }, actorOf(request.socket.remoteAddress)),
    }),
    route({
      method: 'POST',
      url: '/api/chatappb/send',
      errors: [403, 404, 409, 413, 502],
      waitsOn: SENDING,
      summary: 'POST /api/channel/send with the channel fixed to Discord.',
      body: fixedBody,
      response: ChannelSendResultSchema,
      handler: ({ body, request }) => channels.send({ ...body, channel: 'discord' }, actorOf(request.socket.remoteAddress)),
    }),
  ];
});
