// The Telegram adapter (grammY, loaded on first use): long polling against `apiBaseUrl`, messages in
// Telegram's HTML subset, files through getFile, inline keyboards and their presses (callback queries).
// A 429 becomes RateLimited with Telegram's retry_after.
import { setTimeout as delay } from 'node:timers/promises';
import type { Bot, Transformer } from 'grammy';
import type { InlineKeyboardMarkup, Message } from 'grammy/types';
import { linked } from './abort.ts';
import { ChannelRefused, RateLimited, type Button, type ChannelAdapter, type FileKind, type InboundFile, type InboundMessage, type SendTarget } from './adapter.ts';
import { markdownToTelegramHtml, splitMarkdown } from './format.ts';

const MAX_LENGTH = 4096;
const CHAT_COMMANDS = [
  { command: 'new', description: 'Start a new session for this chat' },
  { command: 'stop', description: 'Stop the agent' },
  { command: 'status', description: 'What the agent is doing' },
  { command: 'help', description: 'What the bot understands' },
];
/** Markdown per piece: room for what HTML rendering adds (tags, entities). */
const MARKDOWN_PIECE = 3500;
/**
 * The updates the bot asks for. Telegram keeps a bot's last list when none is given, so it is always
 * given: a bot once polled for messages only would never hear a button press.
 */
const ALLOWED_UPDATES = ['message', 'callback_query'] as const;
/** How long a stop lets Telegram hear where polling stopped (grammY's last getUpdates) before cutting the request. */
const STOP_GRACE_MS = 2000;

/** One connection: the bot, and the switch that ends every request it has under way. */
interface Session {
  bot: Bot;
  life: AbortController;
  polling?: Promise<void>;
  /** Polling started: the attempt succeeded. */
  running: boolean;
}

/**
 * Every request of a session also ends when the session does: grammY gives a request 500 s, and its
 * stop() asks Telegram once more with no way to cancel, so a Bot API that stopped answering would hold
 * up a restart, a switch-off and the server's shutdown.
 */
function endingWith(life: AbortSignal): Transformer {
  return async (prev, method, payload, signal) => {
    const both = linked(signal, life);
    try {
      // grammY types its signal as its polyfill's; any object with addEventListener does (its own check)
      return await prev(method, payload, both.signal as unknown as typeof signal);
    } finally {
      both.unlink();
    }
  };
}

/** A refused token (401; 404 when Telegram does not know it at all) is ChannelRefused: retrying cannot help. */
function refusal(err: unknown): unknown {
  const e = err as { error_code?: number; description?: string };
  if (e.error_code !== 401 && e.error_code !== 404) return err;
  return new ChannelRefused(`the Bot API refused the bot token (${e.error_code}: ${e.description ?? 'refused'}): get a new one from @BotFather and set channels.telegram.botToken`);
}

export function telegramAdapter(): ChannelAdapter {
  let session: Session | undefined;

  const api = () => {
    if (!session) throw new Error('telegram is not connected');
    return session.bot.api;
  };

  async function call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      const e = err as { error_code?: number; parameters?: { retry_after?: number }; description?: string };
      if (e.error_code === 429) throw new RateLimited((e.parameters?.retry_after ?? 1) * 1000, e.description ?? 'Too Many Requests');
      throw err;
    }
  }

  function inbound(message: Message, me: { id: number; username: string }, token: string, apiRoot: string): InboundMessage {
    const raw = message.text ?? message.caption ?? '';
    const entities = message.entities ?? message.caption_entities ?? [];
    const mention = `@${me.username}`.toLowerCase();
    const mentioned = entities.some((e) => (e.type === 'mention' || e.type === 'bot_command') && raw.slice(e.offset, e.offset + e.length).toLowerCase().endsWith(mention));
    const text = raw.replace(new RegExp(`@${me.username}\\b`, 'gi'), '').trim();
    const fileOf = (kind: FileKind, fileId: string, name: string, mime: string, size?: number): InboundFile => ({
      kind,
      name,
      mime,
      size,
      async download() {
        const file = await api().getFile(fileId);
        if (!file.file_path) throw new Error('telegram gave no file path');
        const response = await fetch(`${apiRoot}/file/bot${token}/${file.file_path}`, { signal: AbortSignal.timeout(30_000) });
        if (!response.ok) throw new Error(`telegram file download failed: HTTP ${response.status}`);
        return Buffer.from(await response.arrayBuffer());
      },
    });
    const files: InboundFile[] = [];
    const photo = message.photo?.at(-1);
    if (photo) files.push(fileOf('photo', photo.file_id, `photo-${message.message_id}.jpg`, 'image/jpeg', photo.file_size));
    if (message.document) {
      const d = message.document;
      files.push(fileOf('document', d.file_id, d.file_name ?? `document-${message.message_id}`, d.mime_type ?? 'application/octet-stream', d.file_size));
    }
    if (message.voice) files.push(fileOf('voice', message.voice.file_id, `voice-${message.message_id}.ogg`, message.voice.mime_type ?? 'audio/ogg', message.voice.file_size));
    const chat = message.chat;
    const group = chat.type === 'group' || chat.type === 'supergroup';
    const from = message.from;
    return {
      chatId: String(chat.id),
      threadId: message.is_topic_message && message.message_thread_id ? String(message.message_thread_id) : undefined,
      group,
      addressed: !group || mentioned || message.reply_to_message?.from?.id === me.id,
      senderId: String(from?.id ?? chat.id),
      senderName: from?.username ?? from?.first_name ?? 'someone',
      chatTitle: 'title' in chat && chat.title ? chat.title : (from?.username ?? from?.first_name ?? String(chat.id)),
      text,
      files,
    };
  }

  const thread = (target: SendTarget) => (target.threadId ? { message_thread_id: Number(target.threadId) } : {});
  const keyboard = (rows: Button[][]): InlineKeyboardMarkup => ({ inline_keyboard: rows.map((row) => row.map((b) => ({ text: b.label, callback_data: b.data }))) });
  const parseMode = (piece: { html: boolean }) => (piece.html ? { parse_mode: 'HTML' as const } : {});

  return {
    name: 'telegram',
    maxLength: MAX_LENGTH,
    async start(next, receive, onError, signal) {
      const { Bot } = await import('grammy');
      const apiRoot = next.apiBaseUrl.replace(/\/+$/, '');
      const current: Session = { bot: new Bot(next.token, { client: { apiRoot } }), life: new AbortController(), running: false };
      session = current;
      const { bot, life } = current;
      bot.api.config.use(endingWith(life.signal));
      // cut what is under way, and end grammY's start-up retries (its deleteWebhook tries again for ever)
      const giveUp = () => {
        life.abort();
        void bot.stop().catch(() => undefined);
      };
      if (signal.aborted) giveUp();
      else signal.addEventListener('abort', giveUp, { once: true });
      try {
        // one getMe rather than bot.init(), which retries a network error for ever and says nothing:
        // the service retries, showing why
        bot.botInfo = await bot.api.getMe().catch((err: unknown) => {
          throw refusal(err);
        });
        const me = { id: bot.botInfo.id, username: bot.botInfo.username };
        // the chat's command menu; a bot that cannot set it still works
        await bot.api.setMyCommands(CHAT_COMMANDS).catch((err: Error) => life.signal.aborted || onError(err, false));
        // nor may grammY's start-up begin once the attempt is given up
        life.signal.throwIfAborted();
        bot.on('message', (ctx) => {
          if (ctx.message.from?.is_bot) return;
          receive.message(inbound(ctx.message, me, next.token, apiRoot));
        });
        bot.on('callback_query:data', (ctx) => {
          const query = ctx.callbackQuery;
          const acknowledge = async (notice?: string) => void (await call(() => api().answerCallbackQuery(query.id, notice ? { text: notice } : {})));
          // the message is absent only when it is too old for Telegram to say where it was
          if (!query.message) return void acknowledge('This message is too old to answer.').catch(() => undefined);
          const message = query.message;
          receive.press({
            data: query.data,
            chatId: String(message.chat.id),
            threadId: 'is_topic_message' in message && message.is_topic_message && message.message_thread_id ? String(message.message_thread_id) : undefined,
            senderId: String(query.from.id),
            senderName: query.from.username ? `@${query.from.username}` : query.from.first_name,
            acknowledge,
          });
        });
        bot.catch((err) => onError(err.error instanceof Error ? err.error : new Error(String(err.error)), false));
        await new Promise<void>((resolve, reject) => {
          const started = () => {
            current.running = true;
            resolve();
          };
          // polling ends with an error when Telegram refuses the bot (token revoked, another poller: 409);
          // before it began, that is this attempt's failure
          current.polling = bot.start({ drop_pending_updates: true, allowed_updates: ALLOWED_UPDATES, onStart: started }).catch((err: Error) => {
            if (current.running) onError(refusal(err) as Error, true);
            else reject(refusal(err));
          });
        });
        return { botName: `@${me.username}` };
      } finally {
        signal.removeEventListener('abort', giveUp);
      }
    },
    async stop() {
      const current = session;
      session = undefined;
      if (!current) return;
      if (current.running) await Promise.race([current.bot.stop().catch(() => undefined), delay(STOP_GRACE_MS, undefined, { ref: false })]);
      current.life.abort();
      // when the attempt was given up during grammY's start-up, this ends its retries
      await current.bot.stop().catch(() => undefined);
      await current.polling;
    },
    render(markdown) {
      return splitMarkdown(markdown, MARKDOWN_PIECE).map((piece) => ({ text: markdownToTelegramHtml(piece), html: true }));
    },
    async sendText(target, piece) {
      const options = { ...thread(target), ...parseMode(piece) };
      try {
        const sent = await call(() => api().sendMessage(target.chatId, piece.text, options));
        return String(sent.message_id);
      } catch (err) {
        // HTML Telegram cannot parse goes again as plain text rather than not at all
        if (!piece.html || (err as { error_code?: number }).error_code !== 400) throw err;
        const plain = piece.text.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
        const sent = await call(() => api().sendMessage(target.chatId, plain, thread(target)));
        return String(sent.message_id);
      }
    },
    async sendFile(target, kind, path, caption) {
      const { InputFile } = await import('grammy');
      const file = new InputFile(path);
      const options = { ...thread(target), ...(caption ? { caption } : {}) };
      const sent = await call<{ message_id: number }>(() =>
        kind === 'photo' ? api().sendPhoto(target.chatId, file, options) : kind === 'voice' ? api().sendVoice(target.chatId, file, options) : api().sendDocument(target.chatId, file, options),
      );
      return String(sent.message_id);
    },
    async sendButtons(target, piece, rows) {
      const sent = await call(() => api().sendMessage(target.chatId, piece.text, { ...thread(target), ...parseMode(piece), reply_markup: keyboard(rows) }));
      return String(sent.message_id);
    },
    async settle(target, messageId, piece) {
      // an empty keyboard says in so many words that the buttons go
      await call(() => api().editMessageText(target.chatId, Number(messageId), piece.text, { ...parseMode(piece), reply_markup: keyboard([]) }));
    },
    async editText(target, messageId, text) {
      await call(() => api().editMessageText(target.chatId, Number(messageId), text));
    },
    async deleteMessage(target, messageId) {
      await call(() => api().deleteMessage(target.chatId, Number(messageId)));
    },
    async typing(target) {
      await call(() => api().sendChatAction(target.chatId, 'typing', thread(target)));
    },
  };
}
