// The `channels` settings section: one block per chat channel. The bot tokens are secrets (write-only,
// masked in GET /api/settings, redacted from traces). An empty allowlist lets nobody in; chats are added
// by pairing (a one-time code) or by editing the list, never by writing to the bot.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlSetting } from '../../protocol/settings-url.ts';

const httpUrl = httpUrlSetting();

const chatId = z.string().trim().regex(/^-?\d{1,20}$/, 'a numeric chat or channel id, e.g. 123456789 or -1001234567890');

const channelSchema = (defaultApi: string) =>
  z.strictObject({
    enabled: z.boolean(),
    /** The bot's token. Secret. */
    botToken: z.string().max(512),
    /** Chats (Telegram) or channels (Discord) the bot answers and may send to; empty = none. */
    allowlist: z.array(chatId).max(200),
    /** In groups, answer only messages that mention the bot (or reply to it). */
    mentionOnly: z.boolean(),
    /** Send answers of runs started elsewhere (web, CLI) to the last chat that wrote. */
    forwardReplies: z.boolean(),
    /** While a run started from a chat works, one message there shows its tool steps (edited, then deleted). */
    toolStatus: z.boolean(),
    /** Where the channel's API lives; tests and self-hosted gateways point it elsewhere. */
    apiBaseUrl: httpUrl.default(defaultApi),
  });

export const TELEGRAM_API = 'https://api.telegram.org';
export const DISCORD_API = 'https://discord.com/api';

export const channelsSettingsSchema = z.strictObject({
  telegram: channelSchema(TELEGRAM_API),
  discord: channelSchema(DISCORD_API),
});
export type ChannelsSettings = z.infer<typeof channelsSettingsSchema>;
export type ChannelSettings = ChannelsSettings['telegram'];

const off = (apiBaseUrl: string): ChannelSettings => ({
  enabled: false,
  botToken: '',
  allowlist: [],
  mentionOnly: true,
  forwardReplies: false,
  toolStatus: false,
  apiBaseUrl,
});

export const channelsSettings = settingsSection(
  channelsSettingsSchema,
  { telegram: off(TELEGRAM_API), discord: off(DISCORD_API) },
  ['telegram.botToken', 'discord.botToken'],
);
