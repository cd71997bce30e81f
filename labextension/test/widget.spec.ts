/**
 * The anywidget card (src/widget.ts) on real bundles: the native card's own view, its clicks
 * sent to the kernel as the widget's messages, the kernel's answers shown, a failed fix's
 * new error nested with its own clicks, and the answers replayed by a view drawn later.
 * The model here is a plain object with anywidget's model methods.
 */

import { IDiagnosis, IFixResult, NATIVE_CARD } from '../src/bundle';
import widget, { IKernelMessage, IWidgetModel, WidgetCards } from '../src/widget';
import fixtures from './fixtures/bundles.json';

const diagnoses = fixtures.diagnoses as unknown as IDiagnosis[];
const results = fixtures.results as unknown as IFixResult[];
const flagship = diagnoses.find(d => d.code === 'JNH101')!;

class Model implements IWidgetModel {
  sent: Record<string, unknown>[] = [];
  listeners: ((message: IKernelMessage) => void)[] = [];

  constructor(
    readonly diagnosis: IDiagnosis,
    readonly outcomes: IKernelMessage[] = []
  ) {}

  get(name: 'diagnosis'): IDiagnosis;
  get(name: 'outcomes'): IKernelMessage[] | undefined;
  get(name: string): unknown {
    return name === 'diagnosis' ? this.diagnosis : this.outcomes;
  }

  send(content: Record<string, unknown>): void {
    this.sent.push(content);
  }

  on(_event: 'msg:custom', callback: (message: IKernelMessage) => void): void {
    this.listeners.push(callback);
  }

  answer(message: IKernelMessage): void {
    this.listeners.forEach(listener => listener(message));
  }
}

function render(model: Model): HTMLElement {
  const el = document.createElement('div');
  document.body.appendChild(el);
  widget.render({ model, el });
  return el;
}

const primary = (el: Element) =>
  el.querySelector('.jnh-primary button.jnh-primary-button') as HTMLButtonElement;

afterEach(() => {
  document.body.innerHTML = '';
  delete document.body.dataset[NATIVE_CARD];
});

describe('the anywidget card', () => {
  it('is the native card: heading, cause and primary button', () => {
    const el = render(new Model(flagship));
    const card = el.querySelector('.jnh-native')!;
    expect(card.getAttribute('data-jnh-code')).toBe('JNH101');
    expect(card.querySelector('[role=heading]')!.textContent).toContain(flagship.title);
    expect(card.querySelector('.jnh-cause')!.textContent).toContain(flagship.cause!);
    const fix = flagship.fixes[flagship.recommended! - 1];
    expect(primary(el).textContent).toContain(fix.label);
    expect(primary(el).disabled).toBe(false);
  });

  it('sends a click to the kernel, once, and shows the answer with the cells to copy', () => {
    const model = new Model(flagship);
    const el = render(model);
    const number = flagship.recommended!;
    primary(el).click();
    primary(el).click(); // running: a second click sends nothing
    expect(model.sent).toEqual([{ kind: 'apply', card_id: flagship.card_id, number }]);
    expect(el.querySelector('.jnh-status')!.textContent).toContain('Running fix');
    const copy = results[0].view!.copies[0];
    model.answer({
      kind: 'result',
      card_id: flagship.card_id!,
      number,
      result: results[0],
      outputs: [{ name: 'stdout', text: 'numbers: 3\n' }]
    });
    const outcome = el.querySelector('.jnh-outcome-area')!.textContent!;
    expect(outcome).toContain('✓ Fixed.');
    expect(outcome).toContain('numbers: 3');
    expect(outcome).toContain(`Fixed source of ${copy.label}: copy it into the cell`);
    expect(el.querySelector('pre.jnh-copy')!.textContent).toBe(copy.source);
    expect(outcome).not.toContain('Written into');
    expect(primary(el).disabled).toBe(false);
  });

  it('nests the new error of a failed fix, whose clicks name its own card', () => {
    const model = new Model(flagship);
    const el = render(model);
    primary(el).click();
    const failed = results[1];
    model.answer({ kind: 'result', card_id: flagship.card_id!, number: 1, result: failed });
    const nested = el.querySelector('.jnh-nested .jnh-native')!;
    expect(nested.getAttribute('data-jnh-code')).toBe(failed.diagnosis!.code);
    (nested.querySelector('button.jnh-button') as HTMLButtonElement).click();
    expect(model.sent[model.sent.length - 1].card_id).toBe(failed.diagnosis!.card_id);
  });

  it('says a card the kernel no longer knows is stale', () => {
    const model = new Model(flagship);
    const el = render(model);
    primary(el).click();
    model.answer({ kind: 'result', card_id: flagship.card_id!, number: 1, result: results[2] });
    expect(el.querySelector('.jnh-status')!.textContent).toContain('stale');
    expect(primary(el).disabled).toBe(true);
  });

  it('replays the answers in a view drawn later', () => {
    const answer: IKernelMessage = {
      kind: 'result',
      card_id: flagship.card_id!,
      number: 1,
      result: results[1]
    };
    const el = render(new Model(flagship, [answer]));
    expect(el.querySelector('.jnh-outcome-area')!.textContent).toContain('✗ Not fixed.');
    expect(el.querySelector('.jnh-nested .jnh-native')).not.toBeNull();
  });

  it('draws nothing where the JupyterLab extension shows the native card', () => {
    document.body.dataset[NATIVE_CARD] = 'true';
    const el = render(new Model(flagship));
    expect(el.childElementCount).toBe(0);
  });

  it('keeps the cards of one view by id', () => {
    const cards = new WidgetCards(new Model(flagship), document.createElement('div'));
    expect([...cards.views.keys()]).toEqual([flagship.card_id]);
  });
});
