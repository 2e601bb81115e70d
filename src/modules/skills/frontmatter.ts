// SKILL.md: a frontmatter block (`name`, `description`, optional `category` and `requires` with `bins`
// and `env`) followed by the instructions. A small parser for that subset of YAML (scalars, quoted
// strings, `[a, b]` and `- a` lists, one level of nesting); other keys are ignored, never guessed.
export interface SkillFrontmatter {
  name?: string;
  description?: string;
  category?: string;
  requires: { bins: string[]; env: string[] };
  body: string;
}

const unquote = (v: string): string => {
  const t = v.trim();
  if (t.startsWith('"') && t.endsWith('"') && t.length >= 2) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1).replace(/''/g, "'");
  return t;
};

const flowList = (v: string): string[] | undefined => {
  const t = v.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return undefined;
  return t.slice(1, -1).split(',').map(unquote).filter(Boolean);
};

export function parseSkillMd(text: string): SkillFrontmatter {
  const result: SkillFrontmatter = { requires: { bins: [], env: [] }, body: text };
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return result;
  result.body = text.slice(m[0].length);
  let section: string | undefined;
  let list: string[] | undefined;
  for (const raw of m[1]!.split(/\r?\n/)) {
    if (!raw.trim() || raw.trim().startsWith('#')) continue;
    const indent = raw.length - raw.trimStart().length;
    const line = raw.trim();
    if (line.startsWith('- ')) {
      list?.push(unquote(line.slice(2)));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, value] = kv as unknown as [string, string, string];
    list = undefined;
    if (indent === 0) {
      section = value === '' ? key : undefined;
      if (key === 'name' || key === 'description' || key === 'category') result[key] = unquote(value);
    } else if (section === 'requires' && (key === 'bins' || key === 'env')) {
      const items = flowList(value);
      if (items) result.requires[key] = items;
      else if (value === '') list = result.requires[key];
      else result.requires[key] = [unquote(value)];
    }
  }
  return result;
}
