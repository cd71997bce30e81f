/**
 * The renderer of the diagnosis mime type in notebook outputs. It shows the native card,
 * folds the (long, JAX-internal) traceback above it so the card is in view, and hands the
 * buttons to a `CardController`. The saved notebook is untouched: folding is DOM only.
 */

import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { isDiagnosis } from './bundle';
import { CardController } from './controller';

/** A traceback longer than this many lines is folded above the card. */
export const FOLD_LINES = 12;

/** Fold the error output right above `host` (the traceback), with a toggle. */
export function foldTraceback(host: HTMLElement): HTMLElement | null {
  const child = host.closest('.jp-OutputArea-child');
  let previous = child?.previousElementSibling ?? null;
  while (previous !== null) {
    const error = previous.querySelector(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"] pre'
    ) as HTMLElement | null;
    if (error !== null) {
      const lines = (error.textContent ?? '').split('\n').length;
      if (lines <= FOLD_LINES || previous.classList.contains('jnh-folded')) {
        return null;
      }
      previous.classList.add('jnh-folded');
      const toggle = host.ownerDocument.createElement('button');
      toggle.type = 'button';
      toggle.className = 'jnh-fold-toggle';
      const label = () => {
        toggle.textContent = previous!.classList.contains('jnh-folded')
          ? `Show the whole traceback (${lines} lines)`
          : 'Fold the traceback';
      };
      label();
      // The end of a traceback holds the error itself: a folded box shows that part, when
      // it is first folded and each time it is folded again.
      const showEnd = () => {
        error.scrollTop = error.scrollHeight;
      };
      toggle.addEventListener('click', () => {
        previous!.classList.toggle('jnh-folded');
        label();
        if (previous!.classList.contains('jnh-folded')) {
          showEnd();
        }
      });
      (error.closest('.jp-OutputArea-output') ?? previous).appendChild(toggle);
      showEnd();
      host.ownerDocument.defaultView?.requestAnimationFrame(showEnd); // once laid out
      return toggle;
    }
    previous = previous.previousElementSibling;
  }
  return null;
}

export class DiagnosisRenderer extends Widget implements IRenderMime.IRenderer {
  private readonly _mimeType: string;
  private _controller: CardController | null = null;

  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly _tracker: INotebookTracker
  ) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('jnh-native-host');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[this._mimeType];
    this.node.textContent = '';
    if (!isDiagnosis(data)) {
      this.node.textContent = 'jax_nbhelp: this diagnosis could not be read.';
      return;
    }
    this._controller = new CardController(data, this.node, () => this._panel());
    if (this.isAttached) {
      this._attached();
    }
  }

  protected onAfterAttach(): void {
    this._attached();
  }

  private _attached(): void {
    foldTraceback(this.node);
    this._controller?.attached();
  }

  private _panel(): NotebookPanel | null {
    return this._tracker.find(panel => panel.node.contains(this.node)) ?? null;
  }
}
