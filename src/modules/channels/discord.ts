// The Discord adapter (discord.js, loaded on first use): the gateway for incoming messages and button
// interactions, REST for sending (discord.js's REST client waits out 429s by Discord's retry_after
// itself). `apiBaseUrl` is the REST root; the gateway's address comes from GET /gateway/bot as with
// Discord itself.
import type { Client, Message } from 'discord.js';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { linked } from './abort.ts';
import { ChannelRefused, type Button, type ChannelAdapter, type InboundFile, type InboundMessage } from './adapter.ts';
import { splitMarkdown } from './format.ts';

const MAX_LENGTH = 2000;
/** Component types and button styles of the Discord API. */
const ACTION_ROW = 1;
const BUTTON = 2;
const SUCCESS = 3;
const DANGER = 4;
/** A message svc writes from what an agent asked mentions nobody, whatever it contains (@everyone). */
const NO_MENTIONS = { parse: [] };

const components = (rows: Button[][]) =>
  rows.map((row) => ({ type: ACTION_ROW, components: row.map((b) => ({ type: BUTTON, style: b.danger ? DANGER : SUCCESS, label: b.label, custom_id: b.data })) }));

/** A refused token (401 from REST, or discord.js's own check) is ChannelRefused: retrying cannot help. */
function refusal(err: unknown): unknown {
  const e = err as { status?: number; code?: unknown; message?: string };
  if (e.status !== 401 && e.code !== 'TokenInvalid') return err;
  return new ChannelRefused(`Discord refused the bot token (${e.message ?? '401'}): reset it in the Discord Developer Portal and set channels.discord.botToken`);
}

export function discordAdapter(): ChannelAdapter {
  /** The client, and the switch that ends every REST request it has under way. */
  let session: { client: Client; life: AbortController } | undefined;

  const rest = () => {
    if (!session) throw new Error('discord is not connected');
    return session.client.rest;
  };

  function inbound(message: Message, meId: string): InboundMessage {
    const thread = message.channel.isThread() ? message.channel : undefined;
    const mentioned = message.mentions.users.has(meId) || message.mentions.repliedUser?.id === meId;
    const files: InboundFile[] = message.attachments.map((a) => {
      const mime = a.contentType ?? 'application/octet-stream';
      const voice = a.duration !== null && mime.startsWith('audio/');
      return {
        kind: voice ? 'voice' : mime.startsWith('image/') ? 'photo' : 'document',
        name: a.name,
        mime,
        size: a.size,
        async download() {
          const response = await fetch(a.url, { signal: AbortSignal.timeout(30_000) });
          if (!response.ok) throw new Error(`discord attachment download failed: HTTP ${response.status}`);
          return Buffer.from(await response.arrayBuffer());
        },
      };
    });
    const channelName = 'name' in message.channel && message.channel.name ? `#${message.channel.name}` : message.author.username;
    // a thread is addressed as its parent channel (what the allowlist names) plus the thread
    const parent = thread?.parentId ?? undefined;
    return {
      chatId: parent ?? message.channelId,
      threadId: parent ? message.channelId : undefined,
      group: message.guildId !== null,
      addressed: message.guildId === null || mentioned,
      senderId: message.author.id,
      senderName: message.author.username,
      chatTitle: channelName,
      text: message.content.replace(new RegExp(`<@!?${meId}>`, 'g'), '').trim(),
      files,
    };
  }

  return {
    name: 'discord',
    maxLength: MAX_LENGTH,
    async start(config, receive, onError, signal) {
      const { Client, GatewayIntentBits, Partials, Events, DefaultRestOptions, MessageFlags } = await import('discord.js');
      const life = new AbortController();
      const next = new Client({
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
        partials: [Partials.Channel],
        rest: {
          api: config.apiBaseUrl.replace(/\/+$/, ''),
          // every request also ends with the session: discord.js gives one 15 s and tries again three
          // times, which a stop or a switch-off must not wait for
          makeRequest: async (url, init) => {
            const both = linked(init.signal, life.signal);
            try {
              return await DefaultRestOptions.makeRequest(url, { ...init, signal: both.signal });
            } finally {
              both.unlink();
            }
          },
        },
      });
      session = { client: next, life };
      next.on(Events.Error, (err) => onError(err, false));
      next.on(Events.Invalidated, () => onError(new Error('Discord invalidated the session'), true));
      next.on(Events.MessageCreate, (message) => {
        if (message.author.bot || !next.user) return;
        receive.message(inbound(message, next.user.id));
      });
      next.on(Events.InteractionCreate, (interaction) => {
        if (!interaction.isButton()) return;
        // a thread is addressed as its parent channel plus the thread, as messages are
        const parent = interaction.channel?.isThread() ? (interaction.channel.parentId ?? undefined) : undefined;
        receive.press({
          data: interaction.customId,
          chatId: parent ?? interaction.channelId,
          threadId: parent ? interaction.channelId : undefined,
          senderId: interaction.user.id,
          senderName: `@${interaction.user.username}`,
          // a notice is an ephemeral reply (type 4); silently, the message is updated later (type 6)
          acknowledge: async (notice) => void (notice ? await interaction.reply({ content: notice, flags: MessageFlags.Ephemeral }) : await interaction.deferUpdate()),
        });
      });
      const ready = new Promise<void>((resolve, reject) => {
        next.once(Events.ClientReady, () => resolve());
        life.signal.addEventListener('abort', () => reject(new Error('the attempt was given up')), { once: true });
      });
      ready.catch(() => undefined); // a failed login is the error to report, not this
      // cut the requests under way and close the gateway's socket
      const giveUp = () => {
        life.abort();
        void next.destroy().catch(() => undefined);
      };
      if (signal.aborted) giveUp();
      else signal.addEventListener('abort', giveUp, { once: true });
      try {
        await next.login(config.token);
        await ready;
      } catch (err) {
        throw refusal(err);
      } finally {
        signal.removeEventListener('abort', giveUp);
      }
      return { botName: next.user!.tag };
    },
    async stop() {
      const current = session;
      session = undefined;
      if (!current) return;
      current.life.abort();
      await current.client.destroy();
    },
    render(markdown) {
      return splitMarkdown(markdown, MAX_LENGTH).map((text) => ({ text, html: false }));
    },
    async sendText(target, piece) {
      const { Routes } = await import('discord.js');
      const sent = (await rest().post(Routes.channelMessages(target.threadId ?? target.chatId), { body: { content: piece.text } })) as { id: string };
      return sent.id;
    },
    async sendFile(target, _kind, path, caption) {
      const { Routes } = await import('discord.js');
      const name = basename(path);
      const sent = (await rest().post(Routes.channelMessages(target.threadId ?? target.chatId), {
        body: { content: caption ?? '', attachments: [{ id: 0, filename: name }] },
        files: [{ name, data: await readFile(path) }],
      })) as { id: string };
      return sent.id;
    },
    async sendButtons(target, piece, rows) {
      const { Routes } = await import('discord.js');
      const body = { content: piece.text, components: components(rows), allowed_mentions: NO_MENTIONS };
      const sent = (await rest().post(Routes.channelMessages(target.threadId ?? target.chatId), { body })) as { id: string };
      return sent.id;
    },
    async settle(target, messageId, piece) {
      const { Routes } = await import('discord.js');
      await rest().patch(Routes.channelMessage(target.threadId ?? target.chatId, messageId), { body: { content: piece.text, components: [], allowed_mentions: NO_MENTIONS } });
    },
    async editText(target, messageId, text) {
      const { Routes } = await import('discord.js');
      await rest().patch(Routes.channelMessage(target.threadId ?? target.chatId, messageId), { body: { content: text } });
    },
    async deleteMessage(target, messageId) {
      const { Routes } = await import('discord.js');
      await rest().delete(Routes.channelMessage(target.threadId ?? target.chatId, messageId));
    },
    async typing(target) {
      const { Routes } = await import('discord.js');
      await rest().post(Routes.channelTyping(target.threadId ?? target.chatId));
    },
  };
}
