/**
 * One native card at work in a notebook: it asks the kernel whether the diagnosis is still
 * known, applies fixes (writing rewrite fixes into the cells), watches for kernel restarts,
 * and nests the card of a failed fix's new error.
 */

import { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';

import { applyWrites, ICellState, planEdits, planSetupLine } from './apply';
import { IDiagnosis, IFixResult, ILocation } from './bundle';
import { CardView, STALE } from './card';
import { ask, frontendCall } from './kernel';
import { cellIndexOf, fileOpener, relativeTo, serverRoot } from './locate';

const CONTROLLERS = new WeakMap<HTMLElement, CardController>();

export const NO_KERNEL =
  'No kernel is running. The explanation stands; to apply a fix, run the failing cell ' +
  'again with jax_nbhelp loaded.';
const NO_NOTEBOOK = 'Fixes can be applied from a notebook with a running kernel.';

/** The controller of the card whose root is `node`, if any. */
export function controllerOf(node: Element | null): CardController | undefined {
  return node ? CONTROLLERS.get(node as HTMLElement) : undefined;
}

/** The cells of a notebook as the edit logic sees them. */
export function cellStates(panel: NotebookPanel): ICellState[] {
  return panel.content.widgets.map(cell => ({
    executionCount:
      cell.model.type === 'code' ? (cell.model as ICodeCellModel).executionCount : null,
    source: cell.model.sharedModel.getSource()
  }));
}

export class CardController {
  readonly view: CardView;
  private _panel: NotebookPanel | null = null;
  private _nested: CardController | null = null;

  constructor(
    readonly diagnosis: IDiagnosis,
    host: HTMLElement,
    private readonly findPanel: () => NotebookPanel | null
  ) {
    this.view = new CardView(
      host.ownerDocument,
      diagnosis,
      number => {
        void this.apply(number);
      },
      () => {
        // The kernel turns the interrupt into a stopped fix, not a failed cell.
        void this.kernel?.interrupt();
      },
      line => this.keep(line),
      location => void this.locate(location)
    );
    host.appendChild(this.view.node);
    CONTROLLERS.set(this.view.node, this);
  }

  /**
   * After a fix worked: the traceback above the card is from before it, so it is marked
   * as replaced (DOM only: the saved notebook keeps IPython's output), and when "Run all"
   * stopped at this cell, the cells it never reached are offered to run.
   */
  private _afterFix(panel: NotebookPanel): void {
    const child = this.view.node.closest('.jp-OutputArea-child');
    let previous = child?.previousElementSibling ?? null;
    while (previous !== null) {
      if (previous.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')) {
        previous.classList.add('jnh-replaced');
      }
      previous = previous.previousElementSibling;
    }
    const notebook = panel.content;
    const index = notebook.widgets.findIndex(cell => cell.node.contains(this.view.node));
    if (index < 0) {
      return;
    }
    const below = notebook.widgets
      .slice(index + 1)
      .filter(cell => cell.model.type === 'code' && cell.model.sharedModel.getSource().trim() !== '');
    // not run since this cell ran: no count yet, or one from before (a notebook run again)
    const here = (notebook.widgets[index].model as ICodeCellModel).executionCount ?? 0;
    const unrun = below.filter(cell => {
      const count = (cell.model as ICodeCellModel).executionCount;
      return count === null || count < here;
    });
    if (unrun.length === 0 || unrun.length !== below.length) {
      return; // Run all did not stop here: the cells below ran, or some did
    }
    this.view.offerRunBelow(unrun.length, () => {
      if (index + 1 < notebook.widgets.length) {
        notebook.activeCellIndex = index + 1;
        void NotebookActions.runAllBelow(notebook, panel.sessionContext);
      }
    });
  }

  /** Take the user to `location`: its cell, selected with the line marked, or its file. */
  async locate(location: ILocation): Promise<boolean> {
    if (location.kind === 'file') {
      const open = fileOpener();
      const path = relativeTo(location.filename, serverRoot(this.view.doc));
      return open !== null && path !== null && open(path, Math.max(0, location.lineno - 1));
    }
    const panel = this._panel ?? this.findPanel();
    if (panel === null || location.cell === null) {
      return false;
    }
    const index = cellIndexOf(cellStates(panel), location.cell);
    if (index < 0) {
      this.view.showNote(`${location.label} is no longer in this notebook as it ran (it ran again since, or was removed).`);
      return false;
    }
    const notebook = panel.content;
    notebook.activeCellIndex = index;
    const cell = notebook.widgets[index];
    cell.node.scrollIntoView({ block: 'center' });
    const editor = cell.editor;
    if (editor) {
      const line = Math.max(0, Math.min(location.lineno - 1, editor.lineCount - 1));
      const text = cell.model.sharedModel.getSource().split('\n')[line] ?? '';
      editor.setSelection({ start: { line, column: 0 }, end: { line, column: text.length } });
      editor.focus();
    }
    return true;
  }

  private get kernel(): Kernel.IKernelConnection | null {
    return this._panel?.sessionContext.session?.kernel ?? null;
  }

  /** Called once the card is in the page: find its notebook and check the kernel. */
  attached(): void {
    if (this._panel !== null) {
      return;
    }
    this._panel = this.findPanel();
    if (this._panel === null) {
      this.view.setState({ kind: 'disabled', reason: NO_NOTEBOOK });
      return;
    }
    const context = this._panel.sessionContext;
    const stale = () => this.view.setState({ kind: 'disabled', reason: STALE });
    context.statusChanged.connect((_, status) => {
      if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
        stale();
      }
    });
    context.kernelChanged.connect(() => stale());
    void this.check();
  }

  /** Whether the kernel still knows this diagnosis; disables the buttons if not. */
  async check(): Promise<void> {
    if (!this.diagnosis.card_id) {
      this.view.setState({ kind: 'disabled', reason: NO_KERNEL });
      return;
    }
    const kernel = this.kernel;
    if (kernel === null) {
      this.view.setState({ kind: 'disabled', reason: NO_KERNEL });
      return;
    }
    // Optimistic: a click before the answer is checked by the kernel itself.
    this.view.setState({ kind: 'live' });
    // The card appears while its cell is still running; a request queued behind a failing
    // cell of "Run all" is aborted by the kernel, so an aborted check is asked again.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const answer = await ask(
          kernel,
          frontendCall('status', this.diagnosis.card_id, this.diagnosis.session ?? null)
        );
        if (answer.aborted) {
          await new Promise(resolve => setTimeout(resolve, 500 * (attempt + 1)));
          continue;
        }
        if (answer.result === null || !answer.result.known) {
          this.view.setState({ kind: 'disabled', reason: STALE });
        }
        return;
      } catch {
        this.view.setState({ kind: 'disabled', reason: NO_KERNEL });
        return;
      }
    }
  }

  /** The fix the card's primary button applies (1-based), else the first that can be
   *  applied; null when none can. */
  recommendedFix(): number | null {
    const recommended = this.diagnosis.recommended;
    if (recommended && this.diagnosis.fixes[recommended - 1]?.available) {
      return recommended;
    }
    // the kernel checkup is not a fix: never the one a shortcut applies
    const index = this.diagnosis.fixes.findIndex(fix => fix.available && fix.kind !== 'check');
    return index < 0 ? null : index + 1;
  }

  /** Unfold the traceback above the card and bring the card into view. */
  reveal(): void {
    this.view.node.scrollIntoView({ block: 'nearest' });
  }

  /** Write a lasting mode's set-up line into the notebook (one undoable edit). */
  keep(line: string): void {
    const panel = this._panel;
    if (panel === null) {
      this.view.showKept('No notebook to write into: paste the line yourself.');
      return;
    }
    const plan = planSetupLine(cellStates(panel), line);
    if (plan.kind === 'present') {
      this.view.showKept(`Cell ${plan.index + 1} already has it.`);
    } else if (plan.kind === 'edit') {
      panel.content.widgets[plan.index].model.sharedModel.setSource(plan.source);
      this.view.showKept(`Added to cell ${plan.index + 1}, after %load_ext jax_nbhelp.`);
    } else {
      const model = panel.content.model;
      if (model === null) {
        this.view.showKept('No notebook to write into: paste the line yourself.');
        return;
      }
      model.sharedModel.insertCell(0, { cell_type: 'code', source: plan.source });
      this.view.showKept('Added as a new first cell, with %load_ext jax_nbhelp.');
    }
  }

  /** Apply fix `number`: run it in the kernel; for a rewrite, write the fixed cells. */
  async apply(number: number): Promise<void> {
    const fix = this.diagnosis.fixes[number - 1];
    const kernel = this.kernel;
    const panel = this._panel;
    if (!fix || !fix.available || this.view.state.kind !== 'live') {
      return;
    }
    if (kernel === null || panel === null || !this.diagnosis.card_id) {
      this.view.setState({ kind: 'disabled', reason: NO_KERNEL });
      return;
    }
    const writes = fix.edits.length > 0;
    if (writes) {
      const plan = planEdits(fix.edits, cellStates(panel));
      if (!plan.ok) {
        this.view.showRefusal(number, plan.reason);
        return;
      }
    }
    this.view.setRunning(number);
    let result: IFixResult;
    let outputs = [] as { name: 'stdout' | 'stderr'; text: string }[];
    try {
      const answer = await ask(
        kernel,
        frontendCall('apply', this.diagnosis.card_id, number, this.diagnosis.session ?? null),
        progress => this.view.setProgress(progress)
      );
      outputs = answer.outputs;
      const busy = 'The kernel was busy and set the request aside: click again.';
      result = answer.result ?? {
        known: true,
        ok: false,
        error: answer.aborted ? busy : (answer.error ?? 'no answer')
      };
    } catch (reason) {
      result = { known: true, ok: false, error: `The kernel did not answer: ${reason}` };
    } finally {
      this.view.setRunning(null);
    }
    const written: string[] = [];
    if (result.ok && writes) {
      // The fix ran; the cells get its source unless they changed while it ran.
      const plan = planEdits(fix.edits, cellStates(panel));
      if (plan.ok) {
        applyWrites(plan.writes, (index, source) => {
          panel.content.widgets[index].model.sharedModel.setSource(source);
        });
        written.push(...plan.writes.map(write => write.label));
      } else {
        outputs.push({ name: 'stderr', text: `Not written into the notebook: ${plan.reason}\n` });
      }
    }
    if (!result.known) {
      this.view.setState({ kind: 'disabled', reason: STALE });
    }
    this.view.showOutcome(number, result, outputs, written);
    if (result.ok) {
      this._afterFix(panel);
    }
    this._nested = null;
    if (!result.ok && result.diagnosis) {
      this._nested = new CardController(result.diagnosis, this.view.nested, () => this._panel);
      this._nested.attached();
    }
  }
}
