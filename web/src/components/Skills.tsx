// The skills panel: every skill with its source and whether its requirements are met, a switch to
// enable or disable it for the next runs, and its SKILL.md to read.
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { closeSkills, skillsApi, useSkillsOpen, type Skill } from '../skills.ts';
import { Icon } from '../../ui/icons.tsx';
import { PanelDialog } from './PanelDialog.tsx';
import { Markdown } from './Markdown.tsx';
import './memory.css';
import './skills.css';

/** SKILL.md's frontmatter (shown as it is written) and its body (rendered). */
function splitFrontmatter(text: string): [string, string] {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? [m[1]!, text.slice(m[0].length)] : ['', text];
}

function SkillMd({ text }: { text: string }) {
  const [frontmatter, body] = splitFrontmatter(text);
  return (
    <>
      {frontmatter && <pre class="skill-frontmatter">{frontmatter}</pre>}
      <Markdown text={body} />
    </>
  );
}


export function SkillsPanel() {
  return (
    <PanelDialog open={useSkillsOpen()} onClose={closeSkills} class="memory-panel skills-panel" labelledBy="skills-title">
      {() => <SkillsBody />}
    </PanelDialog>
  );
}

function Requirements({ skill }: { skill: Skill }) {
  const missing = [...skill.missing.bins, ...skill.missing.env];
  if (skill.met) return skill.requirements.bins.length + skill.requirements.env.length ? <span class="skill-req ok">requirements met</span> : null;
  return (
    <span class="skill-req missing" title="Install these binaries or set these variables in agent.env">
      <Icon name="alert" size={13} /> missing: {missing.join(', ')}
    </span>
  );
}

function SkillsBody() {
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const [reading, setReading] = useState<{ id: string; markdown: string } | null>(null);
  const [error, setError] = useState('');

  const load = () =>
    skillsApi.list().then(
      (r) => setSkills(r.skills),
      (err) => setError(errorText(err)),
    );
  useEffect(() => void load(), []);

  const toggle = async (skill: Skill) => {
    try {
      const { skill: next } = await skillsApi.enable(skill.id, !skill.enabled);
      setSkills((list) => list?.map((s) => (s.id === next.id ? next : s)) ?? null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const read = async (id: string) => {
    try {
      const { markdown } = await skillsApi.read(id);
      setReading({ id, markdown });
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <div class="memory">
      <header class="memory-head">
        <h2 id="skills-title">Skills</h2>
        {skills && <span class="memory-status">{skills.filter((s) => s.enabled).length} of {skills.length} enabled</span>}
        <div class="memory-head-actions">
          <button type="button" class="icon-btn" aria-label="Close skills" title="Close" onClick={closeSkills}>
            <Icon name="x" />
          </button>
        </div>
      </header>
      {error && (
        <p class="memory-error skills-error" role="alert">
          {error}
        </p>
      )}
      <div class="skills-body">
        <ul class="skills-list" aria-label="Skills">
          {(skills ?? []).map((s) => (
            <li key={s.id} class={`skill${reading?.id === s.id ? ' active' : ''}`} data-id={s.id}>
              <label class="skill-toggle">
                <input type="checkbox" checked={s.enabled} onChange={() => void toggle(s)} aria-label={`Enable ${s.name}`} />
              </label>
              <button type="button" class="skill-main" onClick={() => void read(s.id)}>
                <span class="skill-name">{s.name}</span>
                <span class="skill-source">{s.source}</span>
                <span class="skill-desc">{s.description}</span>
                <Requirements skill={s} />
              </button>
            </li>
          ))}
        </ul>
        <section class="skill-read" aria-label="SKILL.md">
          {reading ? <SkillMd text={reading.markdown} /> : <p class="muted">Choose a skill to read its SKILL.md.</p>}
        </section>
      </div>
    </div>
  );
}
