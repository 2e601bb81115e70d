// The `channels` settings section: one block per chat channel. The bot tokens are secrets (write-only,
// masked in GET /api/settings, redacted from traces). An empty allowlist lets nobody in; chats are added
// by pairing (a one-time code) or by editing the list, never by writing to the bot.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlSetting } from '../../protocol/settings-url.ts';


const chatId = () => z.string().trim().regex(/^-?\d{1,20}$/, 'a numeric chat or channel id, e.g. 123456789 or -1001234567890');

/** What differs between the channels' fields: the words for a chat and for a group, and the API's address. */
interface ChannelWords {
  title: string;
  description: string;
  defaultApi: string;
  apiTitle: string;
  /** "chat" (Telegram) or "channel" (Discord). */
  chat: string;
  allowTitle: string;
  allowHelp: string;
  /** Where a mention is needed: "groups" or "servers". */
  groups: string;
}

const channelSchema = (w: ChannelWords) =>
  z
    .strictObject({
      enabled: z.boolean().meta({ title: 'Connect the bot', description: `Answer the allowed ${w.chat}s while svc runs.` }),
      /** The bot's token. Secret. */
      botToken: z.string().max(512).meta({ title: 'Bot token', description: 'Secret: never shown again once saved.', writeOnly: true }),
      /** Chats (Telegram) or channels (Discord) the bot answers and may send to; empty = none. */
      allowlist: z.array(chatId()).max(200).meta({ title: w.allowTitle, description: w.allowHelp }),
      /** In groups, answer only messages that mention the bot (or reply to it). */
      mentionOnly: z.boolean().meta({ title: `In ${w.groups}, only when mentioned`, description: 'Or when a message replies to the bot.' }),
      /** Send answers of runs started elsewhere (web, CLI) to the last chat that wrote. */
      forwardReplies: z.boolean().meta({ title: `Forward answers of web and CLI runs to the last ${w.chat}` }),
      /** While a run started from a chat works, one message there shows its tool steps (edited, then deleted). */
      toolStatus: z.boolean().meta({
        title: 'Show tool steps while the agent works',
        description: `One message in the ${w.chat}, edited at most every 2 s, deleted when the answer comes.`,
      }),
      /** Where the channel's API lives; tests and self-hosted gateways point it elsewhere. */
      apiBaseUrl: httpUrlSetting().default(w.defaultApi).meta({ title: w.apiTitle, description: `Change it only for a self-hosted gateway (default ${w.defaultApi}).` }),
    })
    .meta({ title: w.title, description: w.description });

export const TELEGRAM_API = 'https://api.telegram.org';
export const DISCORD_API = 'https://discord.com/api';

/** The section's schema, built on first use (src/protocol/settings.ts). */
const channelsSettingsSchema = () =>
  z
    .strictObject({
      telegram: channelSchema({
        title: 'Telegram',
        description: 'A bot from @BotFather. Only chats on the allowlist are answered; pair a chat below.',
        defaultApi: TELEGRAM_API,
        apiTitle: 'Bot API address',
        chat: 'chat',
        allowTitle: 'Allowed chats',
        allowHelp: 'Chat ids, one per line. Empty: nobody.',
        groups: 'groups',
      }),
      discord: channelSchema({
        title: 'Discord',
        description: 'A bot application with the Message Content intent. Only channels on the allowlist are answered.',
        defaultApi: DISCORD_API,
        apiTitle: 'API address',
        chat: 'channel',
        allowTitle: 'Allowed channels',
        allowHelp: 'Channel ids, one per line. Empty: nobody.',
        groups: 'servers',
      }),
    })
    .meta({ title: 'Chat channels', description: 'Talk to the agent from Telegram or Discord. The bot tokens are secrets.' });
export type ChannelsSettings = z.infer<ReturnType<typeof channelsSettingsSchema>>;
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

export const channelsSettings = settingsSection(channelsSettingsSchema, { telegram: off(TELEGRAM_API), discord: off(DISCORD_API) });
