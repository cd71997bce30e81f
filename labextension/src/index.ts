/**
 * jax_nbhelp in JupyterLab and Notebook 7: a native renderer for the diagnosis bundle, with
 * "Apply to cell" for rewrite fixes, and two commands (palette and cell context menu).
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, ISessionContext } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { DIAGNOSIS_MIME, NATIVE_CARD } from './bundle';
import { controllerOf } from './controller';
import { setFileOpener } from './locate';
import { DiagnosisRenderer } from './renderer';

/** Command ids, one namespace. */
export const CommandIDs = {
  applyRecommendedFix: 'jax-nbhelp:apply-recommended-fix',
  // the command's id before the card had a recommended fix, kept for users' key bindings
  applyFirstFix: 'jax-nbhelp:apply-first-fix',
  showDiagnosis: 'jax-nbhelp:show-diagnosis'
};

// Ahead of text/html (rank 50), so this card shows instead of the static copy.
const RANK = 10;

/**
 * What this page tells each Python kernel it meets: the page folds JAX's frames out of a
 * traceback itself (renderer.ts), so the kernel leaves IPython's traceback whole
 * (`jax_nbhelp.shell.traceback_fold`). One environment variable, set silently: nothing of
 * jax_nbhelp is imported, and a kernel without it is not changed in any way that matters.
 */
export const FOLDS_CODE = '__import__("os").environ["JAX_NBHELP_FRONTEND_FOLDS"] = "1"';

/** Say `FOLDS_CODE` to the session's kernel now, and again whenever it (re)starts or changes. */
export function announceFolding(context: ISessionContext): void {
  let pending = true;
  const announce = async (): Promise<void> => {
    const kernel = context.session?.kernel;
    if (!kernel) {
      return;
    }
    try {
      const info = await kernel.info;
      if (info.language_info.name !== 'python') {
        return;
      }
      kernel.requestExecute({
        code: FOLDS_CODE,
        silent: true,
        store_history: false,
        allow_stdin: false,
        stop_on_error: false
      });
      pending = false;
    } catch {
      // a kernel that went away: the next one is announced when it starts
    }
  };
  context.statusChanged.connect((_, status) => {
    if (status === 'starting' || status === 'restarting') {
      pending = true;
    } else if (status === 'idle' && pending) {
      void announce();
    }
  });
  context.kernelChanged.connect(() => {
    pending = true;
    void context.ready.then(announce);
  });
  void context.ready.then(announce);
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jax-nbhelp:plugin',
  description: "jax_nbhelp's diagnosis card, with Apply to cell.",
  autoStart: true,
  requires: [IRenderMimeRegistry, INotebookTracker],
  optional: [ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    tracker: INotebookTracker,
    palette: ICommandPalette | null
  ) => {
    // the anywidget card draws nothing where this extension shows the native card
    document.body.dataset[NATIVE_CARD] = 'true';
    // this page folds JAX's frames itself: each notebook's kernel hears so
    tracker.widgetAdded.connect((_, panel) => announceFolding(panel.sessionContext));
    rendermime.addFactory(
      {
        safe: true,
        mimeTypes: [DIAGNOSIS_MIME],
        defaultRank: RANK,
        createRenderer: options => new DiagnosisRenderer(options, tracker)
      },
      RANK
    );

    // A helper in a .py file: its location opens the file in the editor at the line.
    setFileOpener(async (path, line) => {
      try {
        const widget = (await app.commands.execute('docmanager:open', { path, factory: 'Editor' })) as any;
        await widget?.context?.ready;
        const editor = widget?.content?.editor;
        if (!editor) {
          return false;
        }
        editor.setCursorPosition({ line, column: 0 });
        editor.focus();
        return true;
      } catch {
        return false;
      }
    });

    const activeCard = () => {
      const cell = tracker.activeCell;
      const nodes = cell ? Array.from(cell.node.querySelectorAll('.jnh-native')) : [];
      // The outermost card of the cell: nested cards belong to it.
      const root = nodes.find(node => !node.parentElement?.closest('.jnh-native'));
      return controllerOf(root ?? null);
    };

    app.commands.addCommand(CommandIDs.showDiagnosis, {
      label: 'Show diagnosis',
      caption: "Bring the active cell's jax_nbhelp diagnosis into view",
      isEnabled: () => activeCard() !== undefined,
      execute: () => activeCard()?.reveal()
    });
    const applyRecommended = {
      label: 'Apply the recommended fix',
      caption: "Apply the fix that the active cell's jax_nbhelp card recommends (its primary button)",
      isEnabled: () => {
        const card = activeCard();
        return card !== undefined && card.recommendedFix() !== null;
      },
      execute: async () => {
        const card = activeCard();
        const number = card?.recommendedFix();
        if (card && number) {
          await card.apply(number);
        }
      }
    };
    app.commands.addCommand(CommandIDs.applyRecommendedFix, applyRecommended);
    app.commands.addCommand(CommandIDs.applyFirstFix, applyRecommended);
    for (const command of [CommandIDs.applyRecommendedFix, CommandIDs.showDiagnosis]) {
      palette?.addItem({ command, category: 'jax_nbhelp' });
    }
    app.contextMenu.addItem({ type: 'separator', selector: '.jp-CodeCell', rank: 60 });
    app.contextMenu.addItem({
      command: CommandIDs.applyRecommendedFix,
      selector: '.jp-CodeCell',
      rank: 61
    });
    app.contextMenu.addItem({
      command: CommandIDs.showDiagnosis,
      selector: '.jp-CodeCell',
      rank: 62
    });
  }
};

export default plugin;
