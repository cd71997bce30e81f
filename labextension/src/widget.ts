/**
 * The card as an anywidget module: the same CardView as the JupyterLab extension, for the
 * frontends where that extension does not run (VS Code, Colab, Notebook 6, JupyterLab with
 * the extension disabled). Built into `jax_nbhelp/show/static/card.js`; the kernel side is
 * `jax_nbhelp.show.card.live`.
 *
 * The widget's model holds the diagnosis bundle and the answers so far (`outcomes`, which a
 * view drawn later replays). A click sends `{kind: 'apply', card_id,
 * number}`; the kernel answers `{kind: 'progress', card_id, progress}` while the fix runs and
 * `{kind: 'result', card_id, number, result, outputs}` at its end. A failed fix whose new
 * error jax_nbhelp knows nests that error's card, whose clicks go the same way.
 */

import { IDiagnosis, IFixResult, IProgress, NATIVE_CARD } from './bundle';
import { CardView, IRunOutput, STALE } from './card';

/** What anywidget hands `render`: the widget's model, as much of it as the card uses. */
export interface IWidgetModel {
  get(name: 'diagnosis'): IDiagnosis;
  get(name: 'outcomes'): IKernelMessage[] | undefined;
  send(content: Record<string, unknown>): void;
  on(event: 'msg:custom', callback: (content: IKernelMessage) => void): void;
  off?(event: 'msg:custom', callback: (content: IKernelMessage) => void): void;
}

/** One message from the kernel side. */
export interface IKernelMessage {
  kind: 'progress' | 'result';
  card_id: string;
  number?: number;
  progress?: IProgress;
  result?: IFixResult;
  outputs?: IRunOutput[];
}

/** The cards of one widget view, the outer one and those nested in it, by card id. */
export class WidgetCards {
  readonly views = new Map<string, CardView>();

  constructor(
    readonly model: IWidgetModel,
    readonly host: HTMLElement
  ) {
    this.mount(host, model.get('diagnosis'));
  }

  /** Build the card of `diagnosis` inside `host`. */
  mount(host: HTMLElement, diagnosis: IDiagnosis): CardView {
    const cardId = diagnosis.card_id ?? '';
    const view: CardView = new CardView(
      host.ownerDocument,
      diagnosis,
      number => {
        const fix = diagnosis.fixes[number - 1];
        if (!fix || !fix.available || view.state.kind !== 'live') {
          return;
        }
        view.setRunning(number);
        this.model.send({ kind: 'apply', card_id: cardId, number });
      },
      null, // a comm message cannot reach a kernel that is busy running the fix
      null, // nor can a widget write the notebook: the set-up line is given to paste
      null,
      false
    );
    this.views.set(cardId, view);
    host.appendChild(view.node);
    return view;
  }

  /** A message from the kernel side, for the card it names; `reveal`: bring an outcome
   *  into view (not when a view drawn later replays what ran). */
  receive(message: IKernelMessage, reveal = true): void {
    const view = this.views.get(message.card_id);
    if (view === undefined) {
      return;
    }
    if (message.kind === 'progress' && message.progress) {
      view.setProgress(message.progress);
    } else if (message.kind === 'result' && message.result && message.number) {
      view.setRunning(null);
      const result = message.result;
      if (!result.known) {
        view.setState({ kind: 'disabled', reason: STALE });
      }
      view.showOutcome(message.number, result, message.outputs ?? [], [], reveal);
      if (!result.ok && result.diagnosis) {
        this.mount(view.nested, result.diagnosis);
      }
    }
  }
}

/** anywidget's entry: draw the card into `el` and hear the kernel's answers. */
function render({ model, el }: { model: IWidgetModel; el: HTMLElement }): () => void {
  if (el.ownerDocument.body.dataset[NATIVE_CARD]) {
    return () => undefined; // the JupyterLab extension's native card shows this diagnosis
  }
  const cards = new WidgetCards(model, el);
  // a view drawn after fixes ran (the output shown again, a second view) shows them too
  for (const message of model.get('outcomes') ?? []) {
    cards.receive(message, false);
  }
  const listener = (message: IKernelMessage) => cards.receive(message);
  model.on('msg:custom', listener);
  return () => model.off?.('msg:custom', listener);
}

export default { render };
