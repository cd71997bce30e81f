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
