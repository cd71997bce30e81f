/**
 * "Apply to cell": which cells a fix writes, the refusal when a cell changed since the
 * error, and one undo per cell (on JupyterLab's own shared cell model).
 */

import { createStandaloneCell, YCodeCell } from '@jupyter/ydoc';

import { applyWrites, ICellState, planEdits, planSetupLine } from '../src/apply';
import { IEdit } from '../src/bundle';

const ORIGINAL = 'def scaled(x):\n    return pl.run_scoped(body, spec, collective_axes="core")';
const FIXED = 'def scaled(x):\n    return pl.run_scoped(body, spec)';
const EDIT: IEdit = { label: 'In [3]', cell: 3, original: ORIGINAL, source: FIXED };

function cells(...states: [number | null, string][]): ICellState[] {
  return states.map(([executionCount, source]) => ({ executionCount, source }));
}

describe('planEdits', () => {
  it('writes the cell found by its execution count', () => {
    const plan = planEdits([EDIT], cells([1, 'import jax'], [3, ORIGINAL], [4, 'out = f(x)']));
    expect(plan).toEqual({ ok: true, writes: [{ index: 1, label: 'In [3]', source: FIXED }] });
  });

  it('refuses a cell edited since the error', () => {
    const plan = planEdits([EDIT], cells([3, ORIGINAL + '\n# edited'], [4, 'out = f(x)']));
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.reason).toContain('In [3] was edited since the error');
    }
  });

  it('refuses a cell run again with a new execution count', () => {
    const plan = planEdits([EDIT], cells([5, ORIGINAL], [4, 'out = f(x)']));
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.reason).toContain('In [3] is not in this notebook any more');
    }
  });

  it('writes nothing when any target changed (no half-applied fix)', () => {
    const second: IEdit = { label: 'In [4]', cell: 4, original: 'out = f(x)', source: 'out = g(x)' };
    const plan = planEdits([EDIT, second], cells([3, ORIGINAL], [4, 'out = h(x)']));
    expect(plan.ok).toBe(false);
  });

  it('skips a cell that already holds the fixed source', () => {
    const plan = planEdits([{ ...EDIT, original: FIXED }], cells([3, FIXED]));
    expect(plan).toEqual({ ok: true, writes: [] });
  });

  it('picks the unchanged one of two cells with the same count (after a restart)', () => {
    const plan = planEdits([EDIT], cells([3, 'other'], [3, ORIGINAL]));
    expect(plan).toEqual({ ok: true, writes: [{ index: 1, label: 'In [3]', source: FIXED }] });
  });
});

describe('applyWrites on a shared cell model', () => {
  it('changes each cell in one undoable edit', () => {
    const cell = createStandaloneCell({ cell_type: 'code', source: ORIGINAL }) as YCodeCell;
    cell.undoManager?.clear();
    const plan = planEdits([EDIT], cells([3, cell.getSource()]));
    expect(plan.ok).toBe(true);
    if (plan.ok) {
      applyWrites(plan.writes, (_index, source) => cell.setSource(source));
    }
    expect(cell.getSource()).toBe(FIXED);
    expect(cell.canUndo()).toBe(true);
    cell.undo();
    expect(cell.getSource()).toBe(ORIGINAL);
  });
});

describe('planSetupLine', () => {
  const LINE = '%jax_nbhelp interpret tpu';

  it('goes right after the notebook\'s %load_ext jax_nbhelp', () => {
    const plan = planSetupLine(cells([1, '%load_ext jax_nbhelp\nimport jax'], [2, 'x = 1']), LINE);
    expect(plan).toEqual({ kind: 'edit', index: 0, source: `%load_ext jax_nbhelp\n${LINE}\nimport jax` });
  });

  it('replaces an interpret line already there, and sees its own line as done', () => {
    const off = planSetupLine(cells([1, '%load_ext jax_nbhelp\n%jax_nbhelp interpret hlo']), LINE);
    expect(off).toEqual({ kind: 'edit', index: 0, source: `%load_ext jax_nbhelp\n${LINE}` });
    const done = planSetupLine(cells([null, 'text'], [1, `%load_ext jax_nbhelp\n${LINE}`]), LINE);
    expect(done).toEqual({ kind: 'present', index: 1 });
  });

  it('inserts a first cell in a notebook that never loads jax_nbhelp', () => {
    const plan = planSetupLine(cells([1, 'import jax'], [2, '%load_ext other']), LINE);
    expect(plan).toEqual({ kind: 'insert', index: 0, source: `%load_ext jax_nbhelp\n${LINE}` });
  });
});
