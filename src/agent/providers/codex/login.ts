// Where Codex CLI's login can be, beyond what its info lists (OPENAI_API_KEY / CODEX_API_KEY, auth.json):
// its configuration may send it to another model endpoint, which may need no OpenAI login at all, or keep
// the login in the system keyring, where svc cannot look. Pure: the detector reads the files.
import { dirname, isAbsolute, join } from 'node:path';
import type { LoginCheck } from '../types.ts';

/**
 * Settings (codex 0.169) after which a missing auth.json proves nothing: another provider
 * (`model_provider`, top level or in a profile), another endpoint for OpenAI's (`openai_base_url`;
 * codex sends its requests there with or without a login), or a login kept in the keyring
 * (`cli_auth_credentials_store`; the default, `file`, is auth.json). The OPENAI_BASE_URL variable is not
 * read by this version (checked: it still called api.openai.com).
 */
const ELSEWHERE: { pattern: RegExp; applies(value: string): boolean }[] = [
  { pattern: /^[ \t]*model_provider[ \t]*=[ \t]*["']([^"'\n]*)["']/gm, applies: (value) => value !== 'openai' },
  { pattern: /^[ \t]*openai_base_url[ \t]*=[ \t]*["']([^"'\n]*)["']/gm, applies: () => true },
  { pattern: /^[ \t]*cli_auth_credentials_store[ \t]*=[ \t]*["']([^"'\n]*)["']/gm, applies: (value) => value === 'keyring' || value === 'auto' },
];

/** The first setting of a codex config.toml that takes its login out of svc's sight, as written; undefined when none does. */
export function codexLoginElsewhere(config: string): string | undefined {
  for (const { pattern, applies } of ELSEWHERE) {
    for (const match of config.matchAll(pattern)) if (applies(match[1]!)) return match[0].trim();
  }
  return undefined;
}

/**
 * The files codex reads its configuration from: its home's (CODEX_HOME, else ~/.codex) and the system's,
 * each with a managed_config.toml beside it, and a project's `.codex/config.toml` in the working directory
 * or any directory above it (codex reads those of trusted projects; svc does not tell which are).
 */
export function codexConfigFiles({ home, env, cwd }: { home: string; env: Readonly<Record<string, string | undefined>>; cwd: string }): string[] {
  const codexHome = env.CODEX_HOME && isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : join(home, '.codex');
  const files = [join(codexHome, 'config.toml'), join(codexHome, 'managed_config.toml'), '/etc/codex/config.toml', '/etc/codex/managed_config.toml'];
  for (let dir = cwd; isAbsolute(dir); dir = dirname(dir)) {
    files.push(join(dir, '.codex', 'config.toml'));
    if (dirname(dir) === dir) break;
  }
  return [...new Set(files)];
}

export const codexLogin: LoginCheck = { configFiles: codexConfigFiles, elsewhere: codexLoginElsewhere };
