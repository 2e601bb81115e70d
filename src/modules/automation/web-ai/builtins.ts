// The built-in vendor profiles. Data only: each says how its site looks, written against accessible roles
// and names where the site gives them, and against its stable data attributes where it does not (an
// assistant message has no role of its own). Sites change; when one does, the user's profile file
// (<home>/web-ai-profiles.json) overrides the field that broke, without a new release.
import type { Profile } from './profiles.ts';

/** Signs of a bot check, shared by every profile (Cloudflare, reCAPTCHA, hCaptcha, Google's "unusual traffic" page). */
const CAPTCHA: Profile['captcha'] = {
  url: '/\\/cdn-cgi\\/challenge-platform|\\/sorry\\/index|captcha/i',
  title: '/^just a moment|attention required|verify you are human/i',
  elements: [
    'iframe[src*="challenges.cloudflare.com"]',
    'iframe[src*="recaptcha"]',
    'iframe[src*="hcaptcha.com"]',
    '#challenge-form',
    { role: 'checkbox', name: "/verify you are human|i'?m not a robot/i" },
  ],
};

/** Where a code block says its language: `class="language-python"` on its <code> (most markdown renderers). */
const LANGUAGE_CLASS = { attribute: 'class', of: 'code', pattern: '/(?:^|\\s)(?:language|lang)-([\\w+#.-]+)/' };

const COMMON = { stableMs: 1500, readyTimeoutMs: 20_000, sendTimeoutMs: 15_000, captcha: CAPTCHA } as const;

/** Any chat page that uses ARIA roles: a textbox, a Send and a Stop button, assistant messages labelled as such. */
const generic: Profile = {
  ...COMMON,
  label: 'Generic chat page',
  composer: [{ role: 'textbox' }, '[contenteditable="true"]'],
  send: { role: 'button', name: '/^(send|submit)\\b/i' },
  stop: { role: 'button', name: '/^stop\\b/i' },
  attach: { input: 'input[type="file"]' },
  answer: ['[data-message-author-role="assistant"]', '[data-role="assistant"]', { role: 'article', name: '/assistant|answer|response/i' }],
  code: { block: 'pre', text: 'code', language: [LANGUAGE_CLASS, { attribute: 'data-language' }] },
  login: { url: '/\\/(log-?in|sign-?in|auth)\\b/i' },
};

const chatgpt: Profile = {
  ...COMMON,
  label: 'ChatGPT',
  url: 'https://chatgpt.com/',
  hosts: ['chatgpt.com', 'chat.openai.com'],
  // The composer is a ProseMirror editor without a role; a hidden textarea carries the placeholder.
  composer: ['#prompt-textarea[contenteditable="true"]', { role: 'textbox', name: '/ask anything|message chatgpt/i' }],
  send: [{ role: 'button', name: '/^send (prompt|message)/i' }, '[data-testid="send-button"]'],
  stop: [{ role: 'button', name: '/^stop (streaming|generating)/i' }, '[data-testid="stop-button"]'],
  attach: { input: 'input[type="file"]' },
  answer: '[data-message-author-role="assistant"]',
  code: { block: 'pre', text: 'code', language: [LANGUAGE_CLASS] },
  login: {
    url: '/auth\\.openai\\.com|\\/auth\\/login/i',
    elements: ['[data-testid="login-button"]', { role: 'button', name: '/^log in$/i' }],
  },
};

const gemini: Profile = {
  ...COMMON,
  label: 'Gemini',
  url: 'https://gemini.google.com/app',
  hosts: ['gemini.google.com'],
  composer: [{ role: 'textbox', name: '/enter a prompt|ask gemini/i' }, 'rich-textarea [contenteditable="true"]'],
  send: { role: 'button', name: '/^send message/i' },
  stop: { role: 'button', name: '/^stop (response|generating)/i' },
  // The upload menu opens a native file chooser.
  attach: { open: [{ role: 'button', name: '/upload file menu|add files/i' }, { role: 'menuitem', name: '/upload files?/i' }] },
  answer: 'model-response message-content',
  code: {
    block: 'code-block',
    text: 'code[data-test-id="code-content"], code',
    language: [{ label: '.code-block-decoration > span' }, LANGUAGE_CLASS],
  },
  login: {
    url: '/accounts\\.google\\.com/i',
    elements: ['a[href*="accounts.google.com/ServiceLogin"]', { role: 'link', name: '/^sign in$/i' }],
  },
};

const claude: Profile = {
  ...COMMON,
  label: 'Claude',
  url: 'https://claude.ai/new',
  hosts: ['claude.ai'],
  composer: [{ role: 'textbox', name: '/write your prompt|talk to claude|how can i help/i' }, 'div.ProseMirror[contenteditable="true"]'],
  send: { role: 'button', name: '/^send message/i' },
  stop: { role: 'button', name: '/^stop (response|generating)/i' },
  attach: { input: ['input[data-testid="file-upload"]', 'input[type="file"]'] },
  // Each of Claude's answers carries data-is-streaming (true while it is written).
  answer: '[data-is-streaming]',
  code: { block: 'pre', text: 'code', language: [LANGUAGE_CLASS] },
  login: {
    url: '/\\/login\\b/i',
    elements: [{ role: 'button', name: '/^continue with (google|email)/i' }],
  },
};

const grok: Profile = {
  ...COMMON,
  label: 'Grok',
  url: 'https://grok.com/',
  hosts: ['grok.com'],
  composer: [{ role: 'textbox', name: '/ask grok|how can grok help/i' }, 'textarea', 'div.tiptap[contenteditable="true"]'],
  send: { role: 'button', name: '/^submit$/i' },
  stop: { role: 'button', name: '/^stop (model )?response/i' },
  attach: { input: 'input[type="file"]' },
  // Answers are the left-aligned message bubbles.
  answer: 'div[id^="response-"].items-start .message-bubble',
  code: {
    block: '[data-testid="code-block"]',
    text: 'code',
    language: [LANGUAGE_CLASS, { label: 'div:first-child > span' }],
  },
  login: {
    url: '/accounts\\.x\\.ai|\\/sign-?in\\b/i',
    elements: ['a[href*="/sign-in"]', { role: 'link', name: '/^sign in$/i' }],
  },
};

export const BUILTIN_PROFILES: Readonly<Record<string, Profile>> = { generic, chatgpt, gemini, claude, grok };
