// The `vision` settings section of the vision-click skill: which locator finds the target (offline OCR, an
// OpenAI-compatible vision endpoint, or a provider CLI that accepts images), where it acts by default, and
// the confidence below which nothing is clicked. Composed into the settings document as `vision`;
// `vision.apiKey` is a secret.
import { z } from 'zod';
import { settingsSection } from '../../../protocol/settings.ts';
import { httpUrlSetting } from '../../../protocol/settings-url.ts';
import { PROVIDER_LABELS } from '../../../agent/settings.ts';

export const VISION_LOCATORS = ['ocr', 'openai', 'cli'] as const;
export const VISION_TARGETS = ['browser', 'desktop'] as const;
export const VISION_CLI_PROVIDERS = ['codex', 'claude', 'gemini'] as const;

export type LocatorKind = (typeof VISION_LOCATORS)[number];
export type TargetKind = (typeof VISION_TARGETS)[number];
export type CliProvider = (typeof VISION_CLI_PROVIDERS)[number];


/** The section's schema, built on first use (src/protocol/settings.ts). */
const visionSettingsSchema = () =>
  z
    .strictObject({
      /** How the target is found: `ocr` (offline, text targets only), `openai` (vision endpoint), `cli` (provider CLI). */
      locator: z.enum(VISION_LOCATORS).meta({
        title: 'Locator',
        description: 'How the target is found on the screenshot.',
        'x-enumLabels': { ocr: 'Offline text recognition (OCR: text targets only)', openai: 'A vision model at an endpoint', cli: 'A provider CLI that reads images' },
      }),
      /** Where the skill looks and clicks when the command does not say: the controlled browser page or the desktop. */
      target: z.enum(VISION_TARGETS).meta({
        title: 'Default target',
        description: 'Where the skill looks and clicks when the command does not say.',
        'x-enumLabels': { browser: 'The controlled browser page', desktop: 'The desktop (X11)' },
      }),
      /** A target found with a lower confidence (0..1) is reported as LOW_CONFIDENCE and nothing is clicked. */
      minConfidence: z
        .number()
        .min(0)
        .max(1)
        .meta({ title: 'Minimum confidence', description: 'From 0 to 1: a target found with less confidence is reported, and nothing is clicked.' }),
      /** OpenAI-compatible endpoint (…/v1): Ollama, vLLM, LM Studio, llama.cpp server, hosted APIs. */
      baseUrl: httpUrlSetting('http://127.0.0.1:11434/v1').meta({ title: 'Vision endpoint', description: 'OpenAI-compatible …/v1: Ollama, vLLM, LM Studio, a llama.cpp server or a hosted API.' }),
      /** Vision model name at that endpoint (required for the `openai` locator). */
      model: z.string().trim().max(200).meta({ title: 'Vision model', description: 'The model at that endpoint (needed when the locator is a vision model).' }),
      /** Bearer token for the endpoint; '' sends none. Secret: never returned by GET /api/settings. */
      apiKey: z.string().max(4096).meta({ title: 'API key', description: 'For the endpoint; empty sends none. Secret: never shown again once saved.', writeOnly: true }),
      /** Provider CLI of the `cli` locator. */
      cliProvider: z.enum(VISION_CLI_PROVIDERS).meta({ title: 'Provider CLI', description: 'The CLI that looks at the screenshot when the locator is a provider CLI.', 'x-enumLabels': PROVIDER_LABELS }),
      /** Model passed to that CLI; '' = its default. */
      cliModel: z.string().trim().max(200).meta({ title: 'CLI model', description: "Passed to that CLI; empty: the CLI's default." }),
      /** Longest a model call (HTTP or CLI) may take. */
      timeoutSec: z.number().int().min(1).max(600).meta({ title: 'Model timeout (s)', description: 'The longest a call of the endpoint or the CLI may take.' }),
      /** Screenshots sent to a model are scaled down so the longer side is at most this (px); 0 = send as captured. */
      maxImageSide: z
        .number()
        .int()
        .min(0)
        .max(8192)
        .meta({ title: 'Largest image side (px)', description: 'Screenshots sent to a model are scaled down to this; 0 sends them as captured.' }),
      /** Keep each screenshot in <home>/media and name it in the result; off deletes it after use. */
      keepScreenshots: z.boolean().meta({ title: 'Keep screenshots', description: 'In the media folder, named in the result; off deletes each one after use.' }),
      /** X11 display of the desktop target, e.g. ':0'; '' = $DISPLAY of the server. */
      display: z
        .string()
        .trim()
        .max(64)
        .regex(/^$|^[A-Za-z0-9._/-]*:\d+(\.\d+)?$/, "must look like ':0' or 'host:1.0'")
        .meta({ title: 'X11 display', description: "For the desktop target, e.g. :0; empty: the server's $DISPLAY." }),
    })
    .meta({ title: 'Vision clicking', description: 'How the vision-click skill finds what to click on a screenshot.' });

export type VisionSettings = z.infer<ReturnType<typeof visionSettingsSchema>>;

export const DEFAULT_VISION_SETTINGS: VisionSettings = {
  locator: 'ocr',
  target: 'browser',
  minConfidence: 0.5,
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: '',
  apiKey: '',
  cliProvider: 'codex',
  cliModel: '',
  timeoutSec: 60,
  maxImageSide: 1920,
  keepScreenshots: true,
  display: '',
};

/** The section the server composes into the settings document; `apiKey` is secret (writeOnly). */
export const visionSettings = settingsSection(visionSettingsSchema, DEFAULT_VISION_SETTINGS);
