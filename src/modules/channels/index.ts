// Chat channels: Telegram (grammY) and Discord (discord.js) behind one adapter interface, loaded on
// first use; the allowlist, pairing, a chat session per chat, outbound sends, and the `channels` settings.
export { ChannelService, type ChannelServiceDeps, type Replier } from './channels.service.ts';
export type { ChannelRouteDeps } from './channels.routes.ts';
export { inboundHandler, type InboundDeps } from './inbound.ts';
export { ChannelSessionRepo } from './sessions.repo.ts';
export { channelsSettings, type ChannelsSettings } from './settings.ts';
export { telegramAdapter } from './telegram.ts';
export type { ChannelAdapter, ChannelName } from './adapter.ts';
export { discordAdapter } from './discord.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadChannelRoutes = () => import('./channels.routes.ts').then((m) => m.channelRoutes);
