/**
 * "Apply to cell": which notebook cells a rewrite fix may write, decided from the
 * execution counts in the diagnosis and what each cell holds now. Pure logic, so it is
 * unit-tested without JupyterLab.
 */

import { IEdit } from './bundle';

/** A notebook cell as this logic needs it. */
export interface ICellState {
  /** The cell's execution count (In [N]), or null when it has none. */
  executionCount: number | null;
  /** The cell's source now. */
  source: string;
}

/** A cell to write: its index in the notebook and its new source. */
export interface ICellWrite {
  index: number;
  label: string;
  source: string;
}

/** What to write, or why nothing may be written. */
export type EditPlan =
  | { ok: true; writes: ICellWrite[] }
  | { ok: false; reason: string };

/**
 * The writes for `edits`, or a refusal when any cell they target changed since the error:
 * a cell that was edited, or run again (a new execution count), is left alone, and so are
 * all the others (half a fix in the notebook would be worse than none).
 */
export function planEdits(edits: IEdit[], cells: ICellState[]): EditPlan {
  const writes: ICellWrite[] = [];
  for (const edit of edits) {
    if (edit.cell === null) {
      return { ok: false, reason: `${edit.label} is not a notebook cell.` };
    }
    const matching = cells
      .map((cell, index) => ({ cell, index }))
      .filter(({ cell }) => cell.executionCount === edit.cell);
    if (matching.length === 0) {
      return {
        ok: false,
        reason:
          `${edit.label} is not in this notebook any more: it was run again (it has a new ` +
          'execution count) or deleted. Run the failing cell again for a fresh diagnosis.'
      };
    }
    const unchanged = matching.find(({ cell }) => cell.source === edit.original);
    if (unchanged === undefined) {
      return {
        ok: false,
        reason:
          `${edit.label} was edited since the error, so jax_nbhelp leaves it alone. Run ` +
          'the failing cell again for a fresh diagnosis.'
      };
    }
    if (unchanged.cell.source !== edit.source) {
      writes.push({ index: unchanged.index, label: edit.label, source: edit.source });
    }
  }
  return { ok: true, writes };
}

/**
 * Write each cell with `setSource`, one call per cell, so each is one undoable edit
 * (Ctrl+Z in that cell restores it).
 */
export function applyWrites(
  writes: ICellWrite[],
  setSource: (index: number, source: string) => void
): void {
  for (const write of writes) {
    setSource(write.index, write.source);
  }
}

/** How to keep a set-up line in the notebook: edit a cell, insert one, or nothing to do. */
export type SetupPlan =
  | { kind: 'edit'; index: number; source: string }
  | { kind: 'insert'; index: 0; source: string }
  | { kind: 'present'; index: number };

const LOAD_EXT = /^\s*%load_ext\s+jax_nbhelp\s*$/;

/**
 * Where `line` (`%jax_nbhelp interpret tpu`) goes so that "Restart kernel and run all" runs
 * the notebook with no click: right after the first `%load_ext jax_nbhelp` line, or, in a
 * notebook that has none, a new first cell that loads jax_nbhelp and runs the line. A
 * cell that already sets an interpret mode has its line replaced.
 */
export function planSetupLine(cells: ICellState[], line: string): SetupPlan {
  const command = line.trim().split(/\s+/).slice(0, 2).join(' ');
  for (let index = 0; index < cells.length; index++) {
    const lines = cells[index].source.split('\n');
    const at = lines.findIndex(text => LOAD_EXT.test(text));
    if (at < 0) {
      continue;
    }
    const existing = lines.findIndex(text => text.trim().startsWith(command));
    if (existing >= 0 && lines[existing].trim() === line.trim()) {
      return { kind: 'present', index };
    }
    if (existing >= 0) {
      lines[existing] = line;
    } else {
      lines.splice(at + 1, 0, line);
    }
    return { kind: 'edit', index, source: lines.join('\n') };
  }
  return { kind: 'insert', index: 0, source: `%load_ext jax_nbhelp\n${line}` };
}
