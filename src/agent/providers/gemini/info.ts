// What svc knows about Gemini CLI (`gemini`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const geminiInfo = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  command: 'gemini',
  models: [
    { id: '', label: 'Default (auto routing)' },
    { id: 'pro', label: 'Pro (latest)' },
    { id: 'flash', label: 'Flash (latest)' },
    { id: 'flash-lite', label: 'Flash-Lite (latest)' },
    { id: 'gemini-3.1-pro-preview', label: 'Gemini 3.1 Pro (preview)' },
    { id: 'gemini-3-flash-preview', label: 'Gemini 3 Flash (preview)' },
    { id: 'gemini-2.5-pro', label: 'Gemini 2.5 Pro' },
    { id: 'gemini-2.5-flash', label: 'Gemini 2.5 Flash' },
  ],
  // Gemini CLI has no effort setting (the adapter ignores `effort`).
  efforts: [],
  install: npmInstall('@google/gemini-cli', 'https://github.com/google-gemini/gemini-cli'),
  // Thought parts are received but stream-json has no event for them.
  credentials: {
    env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
    files: ['.gemini/oauth_creds.json'],
    login: 'gemini',
    loginHow: 'choose "Login with Google"',
  },
  supports: { resume: true, liveSteer: false, thinking: false, streaming: true, mcp: true, readOnly: true },
} satisfies ProviderInfo & { id: 'gemini' };

/**
 * The environment of every gemini process svc starts. Unset, gemini starts a second Node process of itself
 * (to raise its heap limit to half the machine's memory, and to restart after an interactive login) and
 * loads its whole bundle twice: 1.2 s more CPU and latency on every run (3.1 s against 1.8 s of CPU on a
 * 2-core machine). svc's runs are headless, never log in, and fit Node's default heap; as one process,
 * gemini also gets svc's signals itself (its relaunching parent ignores SIGINT and SIGTERM).
 */
export const GEMINI_PROCESS_ENV = Object.freeze({ GEMINI_CLI_NO_RELAUNCH: 'true' });
