// The `/vision-click` slash command: a pure parser from command text to a typed VisionRequest (bad input
// is a 400 that says what is wrong and shows the usage), a renderer of results, and the SlashCommand.
//
//   /vision-click "<description>"                      click the target
//   /vision-click --double|--right|--hover "<desc>"    double-click, context-click, move the pointer there
//   /vision-click --describe ["<focus>"]               describe what is visible (no action)
//   options: --target browser|desktop (or --browser / --desktop), --region x,y,w,h, --locator ocr|openai|cli,
//            --min-confidence 0..1, --tab t1 (browser), --dry-run (find and report, do not act), --help
import { tokenizeArgs, type SlashCommand } from '../../../agent/commands.ts';
import { AppError } from '../../../core/errors.ts';
import { parseRegion } from './geometry.ts';
import { VISION_LOCATORS, VISION_TARGETS, type LocatorKind, type TargetKind } from './settings.ts';
import { MAX_DESCRIPTION, type VisionAction, type VisionRequest, type VisionResult } from './types.ts';
import { ownValue } from '../../../core/own.ts';

export const VISION_CLICK_USAGE =
  '/vision-click [--double|--right|--hover|--describe] [--target browser|desktop] [--region x,y,w,h] [--locator ocr|openai|cli] [--min-confidence 0..1] [--tab t1] [--dry-run] "<description>"';

export const VISION_CLICK_HELP = [
  `Usage: ${VISION_CLICK_USAGE}`,
  '  "<description>"        what to act on: visible text ("Save") or a visual description (model locators)',
  '  --double | --right | --hover   double-click, right-click, or only move the pointer (default: click)',
  '  --describe ["<focus>"]  describe what is visible instead of acting',
  '  --target browser|desktop       the controlled browser page (default) or the X11 desktop; --browser / --desktop',
  '  --region x,y,w,h       capture only this rectangle (viewport CSS px, or screen px on the desktop)',
  '  --locator ocr|openai|cli        OCR of the visible text (offline), an OpenAI-compatible vision endpoint, or a provider CLI',
  '  --min-confidence 0..1  below this nothing is clicked (default from settings, 0.5)',
  '  --tab t1               browser tab (default: the active one)',
  '  --dry-run              find and report the point, do not act',
].join('\n');

const usageError = (message: string) => new AppError(400, 'INVALID_COMMAND_ARGS', `${message}. Usage: ${VISION_CLICK_USAGE}`, { command: 'vision-click' });

const ACTION_FLAGS: Record<string, VisionAction> = { double: 'double', right: 'right', hover: 'hover', describe: 'describe' };
const VALUE_FLAGS = new Set(['target', 'region', 'locator', 'min-confidence', 'tab']);
const BOOL_FLAGS = new Set(['dry-run', 'browser', 'desktop', 'help']);

export type ParsedCommand = { help: true } | { help: false; request: VisionRequest };

/** Parse the command text (the `/vision-click` prefix is optional). Throws 400 INVALID_COMMAND_ARGS. */
export function parseVisionClickCommand(text: string): ParsedCommand {
  let rest = text.trim();
  if (/^\/?vision-click(\s|$)/i.test(rest)) rest = rest.replace(/^\/?vision-click/i, '').trim();
  const tokens = tokenizeArgs(rest);
  if (typeof tokens === 'string') throw usageError(tokens);

  let action: VisionAction | undefined;
  let target: TargetKind | undefined;
  let region: VisionRequest['region'];
  let locator: LocatorKind | undefined;
  let minConfidence: number | undefined;
  let tab: string | undefined;
  let dryRun = false;
  let help = false;
  const words: { value: string; quoted: boolean }[] = [];
  let flagsDone = false;

  const setTarget = (t: TargetKind) => {
    if (target && target !== t) throw usageError(`choose one target, not both ${target} and ${t}`);
    target = t;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!flagsDone && !t.quoted && t.value === '--') {
      flagsDone = true;
      continue;
    }
    if (flagsDone || t.quoted || !t.value.startsWith('--') || t.value.length === 2) {
      words.push(t);
      continue;
    }
    const [name, inline] = t.value.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const flag = name.toLowerCase();
    const a = ownValue(ACTION_FLAGS, flag);
    if (a) {
      if (inline !== undefined) throw usageError(`--${flag} takes no value`);
      if (action && action !== a) throw usageError(`--${action} and --${a} cannot be combined; pick one action`);
      action = a;
      continue;
    }
    if (BOOL_FLAGS.has(flag)) {
      if (inline !== undefined) throw usageError(`--${flag} takes no value`);
      if (flag === 'dry-run') dryRun = true;
      else if (flag === 'help') help = true;
      else setTarget(flag as TargetKind);
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) throw usageError(`unknown option --${name}`);
    const value = inline ?? tokens[++i]?.value;
    if (value === undefined || value === '') throw usageError(`--${flag} needs a value`);
    switch (flag) {
      case 'target':
        if (!(VISION_TARGETS as readonly string[]).includes(value)) throw usageError(`--target must be ${VISION_TARGETS.join(' or ')}, not '${value}'`);
        setTarget(value as TargetKind);
        break;
      case 'locator':
        if (!(VISION_LOCATORS as readonly string[]).includes(value)) throw usageError(`--locator must be one of ${VISION_LOCATORS.join(', ')}, not '${value}'`);
        locator = value as LocatorKind;
        break;
      case 'region':
        try {
          region = parseRegion(value);
        } catch (err) {
          throw usageError(`--${(err as Error).message}`);
        }
        break;
      case 'min-confidence': {
        const n = /^\d*\.?\d+$/.test(value) ? Number(value) : Number.NaN;
        if (!(n >= 0 && n <= 1)) throw usageError(`--min-confidence must be a number from 0 to 1, not '${value}'`);
        minConfidence = n;
        break;
      }
      case 'tab':
        if (!/^t\d{1,9}$/.test(value)) throw usageError(`--tab takes a tab id like t1, not '${value}'`);
        tab = value;
        break;
    }
  }
  // A lone unquoted `help` (as `svc vision-click help` sends it) is the help; quote it to click "Help".
  if (help || (words.length === 1 && !words[0]!.quoted && words[0]!.value.toLowerCase() === 'help' && !action)) return { help: true };
  const act = action ?? 'click';
  // Quotes inside a longer description stay: they mark exact visible text for the OCR locator.
  const description = (words.length === 1 ? words[0]!.value : words.map((w) => (w.quoted ? `"${w.value}"` : w.value)).join(' ')).trim();
  if (act !== 'describe' && !description) throw usageError('say what to find, e.g. /vision-click "Sign in"');
  if (description.length > MAX_DESCRIPTION) throw usageError(`the description is longer than ${MAX_DESCRIPTION} characters`);
  if (tab && target === 'desktop') throw usageError('--tab applies to the browser target only');
  if (dryRun && act === 'describe') throw usageError('--dry-run applies to actions, not --describe');
  const request: VisionRequest = {
    action: act,
    ...(description ? { description } : {}),
    ...(target ? { target } : {}),
    ...(region ? { region } : {}),
    ...(locator ? { locator } : {}),
    ...(minConfidence !== undefined ? { minConfidence } : {}),
    ...(tab ? { tab } : {}),
    ...(dryRun ? { dryRun } : {}),
  };
  return { help: false, request };
}

const VERB: Record<Exclude<VisionAction, 'describe'>, string> = { click: 'Clicked', double: 'Double-clicked', right: 'Right-clicked', hover: 'Moved the pointer to' };

export function renderVisionResult(r: VisionResult): string {
  const shot = r.screenshot ? `\nScreenshot: /media/${r.screenshot}` : '';
  if (r.action === 'describe') return `${r.description ?? ''}\n(${r.target}, ${r.locator})${shot}`;
  const what = r.label ? `"${r.label}"` : 'the target';
  const where = `(${r.point?.x}, ${r.point?.y}) on the ${r.target === 'browser' ? 'page (viewport CSS px)' : 'screen'}`;
  const how = `confidence ${typeof r.confidence === 'number' ? r.confidence.toFixed(2) : '?'} via ${r.locator}`;
  if (!r.acted) return `Found ${what} at ${where}, ${how}; not acted on (--dry-run).${shot}`;
  return `${VERB[r.action]} ${what} at ${where}, ${how}.${shot}`;
}

export interface VisionRunner {
  run(request: VisionRequest): Promise<VisionResult>;
}

/** Parse and run `/vision-click …`. */
export async function runVisionClickCommand(text: string, deps: { service: VisionRunner }): Promise<{ text: string; data?: VisionResult }> {
  const parsed = parseVisionClickCommand(text);
  if (parsed.help) return { text: VISION_CLICK_HELP };
  const data = await deps.service.run(parsed.request);
  return { text: renderVisionResult(data), data };
}

/** The slash command (the core server registers it). */
export function visionClickCommand(deps: { service: VisionRunner }): SlashCommand {
  return {
    name: 'vision-click',
    usage: VISION_CLICK_USAGE,
    description: 'Find a target in a screenshot (browser page or X11 desktop) by OCR or a vision model, then click, double/right-click, hover or describe.',
    async run(args) {
      return (await runVisionClickCommand(args, deps)).text;
    },
  };
}
