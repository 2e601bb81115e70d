// Employees: worker definitions, looked up by exact id only. The presets are data; a changed preset
// is stored as a row, and deleting it brings the preset back.
import type { Db } from '../../store/db.ts';
import { conflict, notFound } from '../../core/errors.ts';
import type { Employee } from '../../protocol/orchestration.ts';
import { ownValue } from '../../core/own.ts';

type Fields = Omit<Employee, 'id' | 'preset'>;


export const PRESETS: Record<string, Fields> = {
  planner: { name: 'Planner', role: 'Drafts a plan: goal, steps, affected files, how to check it', provider: '', model: '', capability: 'read-only', instructions: 'You plan; you do not change files. Read the code you need, then answer with a Markdown plan: goal, steps, files affected, how the result will be checked.' },
  auditor: { name: 'Auditor', role: 'Audits a plan before it is built', provider: '', model: '', capability: 'read-only', verdict: 'audit', instructions: 'You audit the plan you are given against the code: missing steps, wrong assumptions, risks.' },
  verifier: { name: 'Verifier', role: 'Verifies that the build carried out the plan', provider: '', model: '', capability: 'read-only', verdict: 'verification', instructions: 'You check that the plan was carried out in the code.' },
  'security-reviewer': { name: 'Security reviewer', role: 'Reviews changes for security problems', provider: '', model: '', capability: 'read-only', verdict: 'audit', instructions: 'You review the code for security problems (injection, secrets, unsafe defaults, missing checks).' },
  tester: { name: 'Tester', role: 'Writes and runs tests', provider: '', model: '', capability: 'mutable', instructions: 'You write tests for the change you are given and run them. Report what you added and the results.' },
};

/** A preset by exact id (`constructor` is not one). */
const presetOf = (id: string): Fields | undefined => ownValue(PRESETS, id);

export class EmployeeRepo {
  constructor(private readonly db: Db) {}

  list(): Employee[] {
    const rows = this.db.prepare('SELECT id, data FROM employees').all() as { id: string; data: string }[];
    const stored = new Map(rows.map((r) => [r.id, JSON.parse(r.data) as Fields]));
    const out: Employee[] = [];
    for (const [id, preset] of Object.entries(PRESETS)) out.push({ id, ...(stored.get(id) ?? preset), preset: true });
    for (const [id, fields] of stored) if (!presetOf(id)) out.push({ id, ...fields, preset: false });
    return out;
  }

  get(id: string): Employee | undefined {
    const row = this.db.prepare('SELECT data FROM employees WHERE id = ?').get(id) as { data: string } | undefined;
    if (row) return { id, ...(JSON.parse(row.data) as Fields), preset: presetOf(id) !== undefined };
    const preset = presetOf(id);
    return preset ? { id, ...preset, preset: true } : undefined;
  }

  require(id: string): Employee {
    const employee = this.get(id);
    if (!employee) throw notFound('Employee', id);
    return employee;
  }

  create(id: string, fields: Fields): Employee {
    if (this.get(id)) throw conflict('EMPLOYEE_EXISTS', `An employee '${id}' exists already; change it with PATCH /api/employees/${id}.`);
    this.write(id, fields);
    return this.require(id);
  }

  update(id: string, patch: Partial<Fields>): Employee {
    const { id: _id, preset: _preset, ...current } = this.require(id);
    this.write(id, { ...current, ...patch });
    return this.require(id);
  }

  /** Deletes an employee; a preset goes back to its built-in definition. */
  remove(id: string): Employee | undefined {
    this.require(id);
    this.db.prepare('DELETE FROM employees WHERE id = ?').run(id);
    return this.get(id);
  }

  private write(id: string, fields: Fields): void {
    this.db
      .prepare('INSERT INTO employees (id, data, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at')
      .run(id, JSON.stringify(fields), Date.now());
  }
}
