// The skills registry: the built-in automation skills, the skill directories under <home>/skills, and
// skills added from a local path or an npm package (by reference: nothing is copied, and nothing is
// written at start). Read from disk on each call, so an edit to a SKILL.md shows at once.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { AppError, badRequest, conflict, notFound } from '../../core/errors.ts';
import { npmInstall, parsePackageSpec } from '../../core/npm.ts';
import { SKILL_ID_PATTERN, type BuiltInSkill, type RunSkill, type Skill, type SkillSource } from '../../protocol/skills.ts';
import { parseSkillMd } from './frontmatter.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { SkillsRepo } from './skills.repo.ts';

export interface SkillRegistryDeps {
  builtIns: readonly BuiltInSkill[];
  /** <home>/skills: one directory per skill. */
  homeDir: string;
  /** <home>/skills-npm: the npm prefix of skills installed from packages. */
  npmPrefix: string;
  repo: SkillsRepo;
  /** The provider CLIs' environment: where requirements are looked for. */
  env(): NodeJS.ProcessEnv;
  /** Skills change what every run is told and may run: each change is a security audit entry. */
  audit?: AuditSink;
}

const SKILL_FILE = 'SKILL.md';
const ignored = (name: string) => name.startsWith('.') || !SKILL_ID_PATTERN.test(name);

export class SkillRegistry {
  constructor(private readonly deps: SkillRegistryDeps) {}

  list(): Skill[] {
    const flags = this.deps.repo.flags();
    const env = this.deps.env();
    const bins = binariesOnPath(env.PATH ?? '');
    const met = (req: { bins: string[]; env: string[] }) => {
      const missing = { bins: req.bins.filter((b) => !bins(b)), env: req.env.filter((k) => !env[k]) };
      return { requirements: req, missing, met: missing.bins.length + missing.env.length === 0 };
    };
    const builtIn = this.deps.builtIns.map(({ info }): Skill => ({
      ...info,
      source: 'built-in',
      enabled: flags.get(info.id) ?? true,
      ...met({ bins: [], env: [] }),
    }));
    const seen = new Set(builtIn.map((s) => s.id));
    const onDisk: Skill[] = [];
    for (const [id, dir, source] of this.directories()) {
      if (seen.has(id)) continue;
      const file = join(dir, SKILL_FILE);
      if (!existsSync(file)) continue;
      seen.add(id);
      const fm = parseSkillMd(readFileSync(file, 'utf8'));
      onDisk.push({
        id,
        name: fm.name || id,
        description: fm.description ?? '',
        category: fm.category || 'installed',
        source,
        enabled: flags.get(id) ?? true,
        path: dir,
        ...met(fm.requires),
      });
    }
    return [...builtIn, ...onDisk];
  }

  get(id: string): { skill: Skill; markdown: string } {
    const skill = this.find(id);
    if (skill.path) return { skill, markdown: readFileSync(join(skill.path, SKILL_FILE), 'utf8') };
    const builtIn = this.deps.builtIns.find((b) => b.info.id === id)!;
    return { skill, markdown: `---\nname: ${builtIn.info.name}\ndescription: ${JSON.stringify(builtIn.info.description)}\n---\n\n${builtIn.instructions}\n` };
  }

  /** `actor`: who asked, for the audit log. */
  setEnabled(id: string, enabled: boolean, actor: string): Skill {
    const before = this.find(id);
    this.deps.repo.setEnabled(id, enabled);
    if (before.enabled !== enabled) this.deps.audit?.record({ actor, action: enabled ? 'skills.enable' : 'skills.disable', target: id, outcome: 'ok', details: { source: before.source } });
    return this.find(id);
  }

  /** Adds a skill directory by reference, or installs an npm package into <home>/skills-npm first. */
  async install(input: { path?: string; package?: string }, actor: string, onLine: (line: string) => void = () => {}): Promise<Skill> {
    const what = input.path ? { path: input.path } : { package: input.package };
    try {
      const skill = await this.add(input, onLine);
      this.deps.audit?.record({ actor, action: 'skills.install', target: skill.id, outcome: 'ok', details: { ...what, source: skill.source } });
      return skill;
    } catch (err) {
      this.deps.audit?.record({ actor, action: 'skills.install', target: input.path ?? input.package ?? '', outcome: err instanceof AppError && err.status < 500 ? 'refused' : 'failed', details: { ...what, error: (err as { code?: string }).code ?? 'INTERNAL' } });
      throw err;
    }
  }

  private async add(input: { path?: string; package?: string }, onLine: (line: string) => void): Promise<Skill> {
    if (Boolean(input.path) === Boolean(input.package)) throw badRequest('INVALID_SKILL', 'Give either "path" (a skill directory) or "package" (an npm package), not both.');
    let dir: string;
    let kind: 'path' | 'npm';
    if (input.path) {
      dir = input.path;
      kind = 'path';
      if (!existsSync(join(dir, SKILL_FILE))) throw badRequest('INVALID_SKILL', `'${dir}' has no ${SKILL_FILE}. A skill is a directory with a ${SKILL_FILE} (frontmatter name and description).`);
    } else {
      const spec = parsePackageSpec(input.package!);
      this.checkFree(idOf(spec.kind === 'registry' ? spec.name : basename(spec.path)));
      const name = await npmInstall({ prefix: this.deps.npmPrefix, spec, env: this.deps.env(), onLine, code: 'SKILL_INSTALL_FAILED' });
      dir = join(this.deps.npmPrefix, 'node_modules', name);
      kind = 'npm';
      if (!existsSync(join(dir, SKILL_FILE))) throw badRequest('SKILL_INSTALL_FAILED', `${name} has no ${SKILL_FILE} at its root. Nothing was registered.`);
    }
    const id = idOf(kind === 'npm' ? basename(dir) : basename(dir));
    this.checkFree(id);
    this.deps.repo.add({ id, kind, location: dir });
    this.deps.repo.setEnabled(id, true);
    return this.find(id);
  }

  /** The enabled skills that have a directory (what runs are told about). */
  enabledDirs(): RunSkill[] {
    return this.list().flatMap((s) => (s.enabled && s.path ? [{ id: s.id, name: s.name, description: s.description, dir: s.path }] : []));
  }

  enabledBuiltIns(): BuiltInSkill[] {
    const enabled = new Set(this.list().filter((s) => s.enabled && s.source === 'built-in').map((s) => s.id));
    return this.deps.builtIns.filter((b) => enabled.has(b.info.id));
  }

  private find(id: string): Skill {
    if (!SKILL_ID_PATTERN.test(id)) throw badRequest('INVALID_SKILL', `'${id}' is not a skill id: lower-case letters, digits, ".", "_" and "-".`);
    const skill = this.list().find((s) => s.id === id);
    if (!skill) throw notFound('Skill', id);
    return skill;
  }

  private checkFree(id: string): void {
    if (this.list().some((s) => s.id === id)) throw conflict('SKILL_EXISTS', `A skill '${id}' exists already. Rename the directory or disable the other one.`);
  }

  /** [id, directory, source] of every skill directory: <home>/skills first, then the added ones. */
  private directories(): [string, string, SkillSource][] {
    const home: [string, string, SkillSource][] = existsSync(this.deps.homeDir)
      ? readdirSync(this.deps.homeDir, { withFileTypes: true })
          .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !ignored(e.name))
          .map((e) => [e.name, join(this.deps.homeDir, e.name), 'home'])
      : [];
    const added = this.deps.repo.added().map((a): [string, string, SkillSource] => [a.id, a.location, a.kind]);
    return [...home, ...added];
  }
}

/** A skill id from a directory or package name (`@scope/My Skill` → `my-skill`). */
function idOf(name: string): string {
  const id = name.replace(/^@[^/]+\//, '').toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '').replace(/\.\.+/g, '.').slice(0, 64);
  if (!SKILL_ID_PATTERN.test(id)) throw badRequest('INVALID_SKILL', `No skill id can be made from '${name}'.`);
  return id;
}

/** A lookup of executables on a PATH (checked once per listing). */
function binariesOnPath(path: string): (bin: string) => boolean {
  const dirs = path.split(delimiter).filter(Boolean);
  return (bin) =>
    dirs.some((d) => {
      try {
        return statSync(join(d, bin)).isFile();
      } catch {
        return false;
      }
    });
}
