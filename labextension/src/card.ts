/**
 * The native card: the diagnosis as DOM, built with `textContent` only (user code, error
 * text and JAX's messages never become markup). Pure DOM, unit-tested in jsdom; the
 * renderer wires its buttons to the kernel and the notebook.
 */

import {
  hasView,
  ICardView,
  ICopyView,
  IDiagnosis,
  IFixResult,
  IFixView,
  ILocation,
  IOutcomeView,
  IPlaceView,
  IProgress
} from './bundle';
import { cardMarkdown } from './markdown';
import { canLocate } from './locate';

/** Whether the card's buttons can act, and if not, why. */
export type CardState =
  | { kind: 'live' }
  | { kind: 'checking' }
  | { kind: 'disabled'; reason: string };

/** Captured output of a fix's run (what it printed or displayed). */
export interface IRunOutput {
  name: 'stdout' | 'stderr';
  text: string;
}

function element<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/**
 * Append `text` to `parent` with its `inline code` as <code>: the one text format of
 * every card (the kernel's text form keeps the backticks). Only text nodes are made, so
 * nothing in `text` becomes markup.
 */
export function appendInline(doc: Document, parent: HTMLElement, text: string): HTMLElement {
  text.split(/`([^`\n]+)`/).forEach((part, i) => {
    if (i % 2 === 1) {
      parent.appendChild(element(doc, 'code', undefined, part));
    } else if (part) {
      parent.appendChild(doc.createTextNode(part));
    }
  });
  return parent;
}

/** An element holding `text` in the cards' text format (see appendInline). */
function textBlock(doc: Document, className: string, text: string): HTMLElement {
  return appendInline(doc, element(doc, 'div', className), text);
}

/** A place's lines, numbered, the line itself marked. */
export function sourceWindow(doc: Document, place: IPlaceView): HTMLElement {
  const pre = element(doc, 'pre', 'jnh-src');
  const width = String(place.window[place.window.length - 1][0]).length;
  place.window.forEach(([number, text], i) => {
    const hit = number === place.lineno;
    const row = element(doc, 'span', hit ? 'jnh-line jnh-hit' : 'jnh-line');
    row.appendChild(
      element(doc, 'span', 'jnh-ln', `${String(number).padStart(width)} ${hit ? '→' : ' '} `)
    );
    row.appendChild(doc.createTextNode(text));
    pre.appendChild(row);
    if (i < place.window.length - 1) {
      pre.appendChild(doc.createTextNode('\n'));
    }
  });
  return pre;
}

function placeBlock(
  doc: Document,
  place: IPlaceView,
  location: ILocation | null,
  onLocate: ((location: ILocation) => void) | null
): HTMLElement {
  const block = element(doc, 'div', 'jnh-where');
  const title = element(doc, 'div', 'jnh-heading', `${place.heading} `);
  title.appendChild(placeLink(doc, location, onLocate, place.label));
  if (place.within) {
    title.appendChild(element(doc, 'span', 'jnh-muted', place.within));
  }
  block.appendChild(title);
  block.appendChild(sourceWindow(doc, place));
  return block;
}

/** A fix's preview line by line, diff lines marked; its text is exactly the preview. */
export function previewBlock(doc: Document, fix: IFixView): HTMLElement {
  const pre = element(doc, 'pre', 'jnh-preview');
  fix.preview.split('\n').forEach((line, i, all) => {
    let css = '';
    if (line.startsWith('+') && !line.startsWith('+++')) {
      css = 'jnh-add';
    } else if (line.startsWith('-') && !line.startsWith('---')) {
      css = 'jnh-del';
    } else if (line.startsWith('@@')) {
      css = 'jnh-hunk';
    }
    pre.appendChild(css ? element(doc, 'span', `jnh-line ${css}`, line) : doc.createTextNode(line));
    if (i < all.length - 1) {
      pre.appendChild(doc.createTextNode('\n'));
    }
  });
  return pre;
}

/**
 * A place that links to itself where the frontend can go there (the cell, its line
 * selected, or the file at the line); else `plain`, as text.
 */
function placeLink(
  doc: Document,
  location: ILocation | null,
  onLocate: ((location: ILocation) => void) | null,
  plain: string
): HTMLElement {
  if (location && onLocate && canLocate(doc, location)) {
    const link = element(doc, 'button', 'jnh-locate', location.label);
    link.type = 'button';
    link.title = location.kind === 'cell' ? 'Go to this line of the cell' : 'Open the file at this line';
    link.addEventListener('click', () => onLocate(location));
    return link;
  }
  return element(doc, 'span', 'jnh-muted', plain);
}

/** What a card says when its kernel no longer knows its diagnosis (every host of the card). */
export const STALE =
  'This diagnosis is stale: the kernel restarted since the error. Run the failing cell ' +
  'again for a fresh one.';

/** What a card says of a bundle from a release before the card view: its text only. */
export const OLD_BUNDLE =
  'This card was saved by an earlier jax_nbhelp: run the cell again for a card with its fixes.';

/** The banner's class by what it stands for. */
const BANNER_CLASS: Record<string, string> = {
  hidden: 'jnh-text jnh-muted jnh-hidden-fixes',
  general: 'jnh-text jnh-muted jnh-general',
  'no-fix': 'jnh-text jnh-muted'
};

/**
 * The card for one diagnosis; a failed fix nests the card of its new error. It lays out
 * the card view the kernel computed (`diagnosis.view`) and says nothing of its own.
 */
export class CardView {
  readonly node: HTMLElement;
  readonly buttons: HTMLButtonElement[] = [];
  readonly status: HTMLElement;
  readonly outcome: HTMLElement;
  readonly nested: HTMLElement;
  readonly copyButton: HTMLButtonElement;
  readonly collapseButton: HTMLButtonElement;
  /** What the kernel said the card says; null for a bundle from an earlier release. */
  readonly view: ICardView | null;
  private _applied: string | null = null;
  private _state: CardState = { kind: 'live' };
  private _running = false;
  private _timer: number | null = null;
  private _reported = false;
  private _runningLabel = '';
  /** Buttons an outcome offers (the kernel checkup after a fix): live as the card is. */
  private _outcomeButtons: HTMLButtonElement[] = [];

  constructor(
    readonly doc: Document,
    readonly diagnosis: IDiagnosis,
    readonly onApply: (number: number) => void,
    readonly onStop: (() => void) | null = null,
    readonly onKeep: ((line: string) => void) | null = null,
    onLocate: ((location: ILocation) => void) | null = null,
    /** Whether the host writes a rewrite fix into the cells (the JupyterLab extension);
     *  where it cannot (the anywidget card), a fix's outcome gives the fixed cells to copy. */
    readonly writesCells = true
  ) {
    const d = diagnosis;
    const v = hasView(d) ? d.view : null;
    this.view = v;
    this.node = element(doc, 'div', 'jnh-native');
    this.node.dataset.jnhCode = d.code;
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', v ? v.region_label : d.title);
    const header = element(doc, 'div', 'jnh-header');
    const title = element(doc, 'div', 'jnh-title', v ? v.title : d.title);
    title.setAttribute('role', 'heading');
    title.setAttribute('aria-level', '3');
    // a space, so that copied text does not run the title into the code
    title.appendChild(doc.createTextNode(' '));
    title.appendChild(element(doc, 'span', 'jnh-code', v ? v.code_label : d.code));
    header.appendChild(title);
    const tools = element(doc, 'span', 'jnh-tools');
    this.copyButton = element(doc, 'button', 'jnh-tool jnh-copy-md', 'Copy as Markdown');
    this.copyButton.type = 'button';
    this.copyButton.title = 'The diagnosis, its place, the fix applied and the versions, for an issue';
    this.copyButton.addEventListener('click', () => void this.copyMarkdown());
    this.copyButton.hidden = v === null;
    this.collapseButton = element(doc, 'button', 'jnh-tool jnh-collapse');
    this.collapseButton.type = 'button';
    this.collapseButton.addEventListener('click', () => this.setCollapsed(!this.collapsed));
    tools.appendChild(this.copyButton);
    tools.appendChild(this.collapseButton);
    header.appendChild(tools);
    this.node.appendChild(header);
    this.status = element(doc, 'div', 'jnh-status');
    this.outcome = element(doc, 'div', 'jnh-outcome-area');
    this.outcome.setAttribute('aria-live', 'polite');
    this.nested = element(doc, 'div', 'jnh-nested');
    if (v === null) {
      this.node.appendChild(textBlock(doc, 'jnh-text', d.explanation));
      this.node.appendChild(element(doc, 'div', 'jnh-text jnh-muted jnh-old-bundle', OLD_BUNDLE));
    } else {
      this._glance(v, onLocate);
      this.node.appendChild(this._details(v, onLocate));
    }
    this.node.appendChild(this.status);
    this.node.appendChild(this.outcome);
    this.node.appendChild(this.nested);
    this.setCollapsed(false);
    this._sync();
  }

  /** The cause with its place, the banner, the primary button and the others. */
  private _glance(v: ICardView, onLocate: ((location: ILocation) => void) | null): void {
    const doc = this.doc;
    const d = this.diagnosis;
    // The cause in one sentence, with the place it happened (the error line itself sits
    // right above the card, in the traceback).
    const cause = textBlock(doc, 'jnh-text jnh-cause', v.cause);
    // the place: a link where the card can go there, else its name unless the cause says it
    const linked = d.location !== null && onLocate !== null && canLocate(doc, d.location);
    if (d.location && v.place && (linked || !v.place_named)) {
      cause.appendChild(doc.createTextNode(' '));
      cause.appendChild(placeLink(doc, d.location, onLocate, `(${v.place})`));
    }
    this.node.appendChild(cause);
    if (v.banner) {
      this.node.appendChild(element(doc, 'div', BANNER_CLASS[v.banner_kind ?? 'no-fix'], v.banner));
    }
    // One button per fix, made in the fixes' order (buttons[n - 1] is fix n); the
    // recommended one comes first, as the primary button, the others after it.
    v.fixes.forEach(fix => this.buttons.push(this._button(fix, fix.number === v.recommended)));
    if (v.recommended !== null && this.buttons[v.recommended - 1]) {
      const primary = element(doc, 'div', 'jnh-primary');
      primary.appendChild(this.buttons[v.recommended - 1]);
      primary.appendChild(textBlock(doc, 'jnh-text jnh-short', v.recommended_line ?? ''));
      this.node.appendChild(primary);
    }
    if (v.others.length > 0) {
      const row = element(doc, 'div', 'jnh-others');
      if (v.others_heading) {
        row.appendChild(element(doc, 'span', 'jnh-muted', `${v.others_heading}: `));
      }
      for (const n of v.others) {
        row.appendChild(this.buttons[n - 1]);
      }
      this.node.appendChild(row);
    }
  }

  /** Everything else, one click away: the error line, the whole explanation, the places
   *  with their lines, why, the notes, and each fix's safety and exactly what it runs. */
  private _details(v: ICardView, onLocate: ((location: ILocation) => void) | null): HTMLElement {
    const doc = this.doc;
    const d = this.diagnosis;
    const more = element(doc, 'details', 'jnh-more');
    more.appendChild(element(doc, 'summary', undefined, v.details_summary));
    more.appendChild(element(doc, 'div', 'jnh-error', d.error));
    more.appendChild(textBlock(doc, 'jnh-text', d.explanation));
    // Each place names the diagnosis's field it shows (`of`), where its link goes. A view
    // saved before `of` lists where (when known), then the call that reached it; one saved
    // before places were part of the view has none (its static copy still shows them).
    const located = [d.location, d.call_site].filter((l): l is ILocation => l !== null);
    (v.places ?? []).forEach((place, i) =>
      more.appendChild(placeBlock(doc, place, (place.of ? d[place.of] : located[i]) ?? null,
                                  onLocate))
    );
    more.appendChild(element(doc, 'div', 'jnh-heading', 'Why:'));
    more.appendChild(textBlock(doc, 'jnh-text', d.why));
    for (const note of d.notes) {
      const text = element(doc, 'div', 'jnh-text');
      text.appendChild(element(doc, 'strong', undefined, 'Note: '));
      appendInline(doc, text, note);
      more.appendChild(text);
    }
    if (v.shared_line) {
      more.appendChild(textBlock(doc, 'jnh-text jnh-shared', v.shared_line));
    }
    v.fixes.forEach(fix => more.appendChild(this._fixBlock(fix)));
    return more;
  }

  /** Whether the card shows only its header (and an outcome): the one-line view. */
  get collapsed(): boolean {
    return this.node.classList.contains('jnh-collapsed');
  }

  setCollapsed(collapsed: boolean): void {
    this.node.classList.toggle('jnh-collapsed', collapsed);
    this.collapseButton.textContent = collapsed ? 'Details ▸' : 'Collapse ▾';
    this.collapseButton.setAttribute('aria-expanded', String(!collapsed));
    this.collapseButton.title = collapsed ? 'Show the whole diagnosis' : 'Fold the card to one line';
  }

  /** The card as Markdown (see markdown.ts), with the fix that ran last. */
  markdown(): string {
    return this.view ? cardMarkdown(this.view, this._applied) : `${this.diagnosis.title}\n`;
  }

  /** Put `markdown()` on the clipboard, and say so on the button. */
  async copyMarkdown(): Promise<boolean> {
    const clipboard = this.doc.defaultView?.navigator.clipboard;
    let copied = false;
    try {
      if (clipboard) {
        await clipboard.writeText(this.markdown());
        copied = true;
      }
    } catch {
      copied = false;
    }
    this.copyButton.textContent = copied ? 'Copied' : 'Copy failed (no clipboard access)';
    this.doc.defaultView?.setTimeout(() => {
      this.copyButton.textContent = 'Copy as Markdown';
    }, 2000);
    return copied;
  }

  private _button(fix: IFixView, primary: boolean): HTMLButtonElement {
    const doc = this.doc;
    const css = ['jnh-button', primary ? 'jnh-primary-button' : 'jnh-secondary'];
    if (!fix.safe) {
      css.push('jnh-warn');
    }
    const button = element(doc, 'button', css.join(' '), fix.label);
    button.type = 'button';
    // what a click does, said to the pointer and to a screen reader, not in the label
    button.title = fix.button_title;
    button.setAttribute('aria-label', fix.button_aria);
    button.addEventListener('click', () => this.onApply(fix.number));
    return button;
  }

  /** A fix in the details: what it does, how safe, and exactly what it runs. */
  private _fixBlock(fix: IFixView): HTMLElement {
    const doc = this.doc;
    const block = element(doc, 'div', 'jnh-fix');
    block.appendChild(element(doc, 'div', 'jnh-fix-title', fix.heading));
    block.appendChild(textBlock(doc, 'jnh-text', fix.summary));
    const safety = element(doc, 'div', 'jnh-text');
    safety.appendChild(element(doc, 'span', fix.safe ? 'jnh-safe' : 'jnh-unsafe', `${fix.badge} `));
    appendInline(doc, safety, fix.safety);
    block.appendChild(safety);
    if (fix.unavailable) {
      block.appendChild(textBlock(doc, 'jnh-text jnh-unavailable', fix.unavailable));
    }
    if (fix.long) {
      block.appendChild(element(doc, 'div', 'jnh-text jnh-estimate', fix.long));
    }
    if (fix.kernel_only) {
      block.appendChild(element(doc, 'div', 'jnh-text jnh-muted', fix.kernel_only));
    }
    const details = element(doc, 'details', 'jnh-details');
    details.appendChild(element(doc, 'summary', undefined, 'What it runs'));
    details.appendChild(previewBlock(doc, fix));
    block.appendChild(details);
    return block;
  }

  /** Whether the buttons may act: live, still checking the kernel, or disabled with why. */
  get state(): CardState {
    return this._state;
  }

  setState(state: CardState): void {
    this._state = state;
    this._sync();
  }

  /**
   * Show that fix `number` runs (null: it ended): the time elapsed, ticking, and a Stop
   * button that interrupts only the fix (the kernel puts back what it changed).
   */
  setRunning(number: number | null): void {
    this._running = number !== null;
    const view = this.doc.defaultView;
    if (this._timer !== null && view) {
      view.clearInterval(this._timer);
    }
    this._timer = null;
    const fix = number !== null ? this.view?.fixes[number - 1] : undefined;
    if (number !== null && fix) {
      const started = Date.now();
      this.status.className = 'jnh-status jnh-running';
      this.status.textContent = '';
      const text = element(this.doc, 'span', 'jnh-elapsed');
      // Until the kernel's first report (after a few seconds), the time ticks here.
      const tick = () => {
        if (this._reported) {
          return;
        }
        const seconds = Math.floor((Date.now() - started) / 1000);
        text.textContent = `${fix.running} ${seconds} s${fix.expected}`;
      };
      this._reported = false;
      this._runningLabel = fix.running;
      tick();
      this.status.appendChild(text);
      if (this.onStop) {
        const stop = element(this.doc, 'button', 'jnh-button jnh-stop', 'Stop');
        stop.type = 'button';
        stop.title = 'Interrupt the kernel: only this fix stops, and what it changed is put back.';
        const onStop = this.onStop;
        stop.addEventListener('click', () => {
          stop.disabled = true;
          onStop();
        });
        this.status.appendChild(stop);
      }
      const bar = element(this.doc, 'progress', 'jnh-progress') as HTMLProgressElement;
      bar.max = 1;
      bar.hidden = true;
      bar.setAttribute('aria-label', `Progress of fix ${number}`);
      this.status.appendChild(bar);
      if (view) {
        this._timer = view.setInterval(tick, 1000);
      }
    }
    this._sync();
  }

  /**
   * A report of the running fix from the kernel: grid steps done (or time against the
   * estimate) as a bar, and the time left. Reports for another card or fix are ignored.
   */
  setProgress(progress: IProgress): void {
    if (!this._running || progress.card_id !== this.diagnosis.card_id) {
      return;
    }
    this._reported = true;
    const text = this.status.querySelector('.jnh-elapsed');
    if (text) {
      text.textContent = `${this._runningLabel} ${progress.text}`;
    }
    const bar = this.status.querySelector('progress.jnh-progress') as HTMLProgressElement | null;
    if (bar) {
      bar.hidden = progress.fraction === null;
      if (progress.fraction !== null) {
        bar.value = progress.fraction;
        // counted steps, or only the time estimate: the bar says which
        bar.classList.toggle('jnh-progress-estimated', progress.steps === null);
        bar.title = progress.steps === null ? 'Time elapsed against the estimate' : 'Grid steps done';
      }
    }
  }

  private _sync(): void {
    const live = this._state.kind === 'live' && !this._running;
    const fixes = this.view?.fixes ?? [];
    this.buttons.forEach((button, i) => {
      button.disabled = !live || !fixes[i].available;
    });
    this._outcomeButtons.forEach(button => {
      button.disabled = !live;
    });
    if (this._state.kind === 'disabled') {
      this.status.className = 'jnh-status jnh-disabled';
      this.status.textContent = this._state.reason;
    } else if (!this._running) {
      this.status.className = 'jnh-status';
      this.status.textContent = '';
    }
  }

  /** Say why a fix did not run (nothing was changed). */
  showRefusal(number: number, reason: string): void {
    this.outcome.textContent = '';
    const label = this.view?.fixes[number - 1]?.label ?? '';
    const box = element(this.doc, 'div', 'jnh-outcome jnh-fail');
    box.appendChild(element(this.doc, 'strong', undefined, '✗ Not applied. '));
    box.appendChild(this.doc.createTextNode(`“${label}”: ${reason}`));
    this.outcome.appendChild(box);
  }

  /**
   * After a fix that leaves a mode on: how to keep it in the notebook, with a button that
   * writes the line there when the card can reach the notebook.
   */
  private _showKeep(sentence: string, line: string): void {
    const d = this.doc;
    const keep = textBlock(d, 'jnh-text jnh-keep', `${sentence} `);
    if (this.onKeep !== null) {
      const onKeep = this.onKeep;
      const button = element(d, 'button', 'jnh-keep-button', 'Keep it in the notebook') as HTMLButtonElement;
      button.type = 'button';
      button.addEventListener('click', () => {
        button.disabled = true;
        onKeep(line);
      });
      keep.appendChild(button);
    }
    this.outcome.appendChild(keep);
  }

  /** The fixed source of each cell the fix rewrote, with a button that copies it: a
   *  host that cannot edit the notebook leaves the edit to the user. */
  private _showCopies(copies: ICopyView[]): void {
    const d = this.doc;
    for (const copy of copies) {
      const line = element(d, 'div', 'jnh-text', `${copy.sentence} `);
      const button = element(d, 'button', 'jnh-tool jnh-copy-source', 'Copy') as HTMLButtonElement;
      button.type = 'button';
      button.addEventListener('click', () => {
        const clipboard = d.defaultView?.navigator.clipboard;
        const done = (copied: boolean) => {
          button.textContent = copied ? 'Copied' : 'Copy failed (select the text)';
        };
        if (clipboard) {
          clipboard.writeText(copy.source).then(() => done(true), () => done(false));
        } else {
          done(false);
        }
      });
      line.appendChild(button);
      this.outcome.appendChild(line);
      this.outcome.appendChild(element(d, 'pre', 'jnh-copy', copy.source));
    }
  }

  /** "Run the cells below": Run all stopped at this cell, and `count` cells never ran. */
  offerRunBelow(count: number, run: () => void): void {
    const d = this.doc;
    const line = element(d, 'div', 'jnh-text jnh-run-below');
    const cells = count === 1 ? 'the cell below' : `the ${count} cells below`;
    line.appendChild(d.createTextNode(`Run all stopped here, so ${cells} never ran. `));
    const button = element(d, 'button', 'jnh-run-below-button', 'Run the cells below');
    button.type = 'button';
    button.addEventListener('click', () => {
      button.disabled = true;
      run();
    });
    line.appendChild(button);
    this.outcome.appendChild(line);
  }

  /** A line of explanation in the outcome area (why a link could not go there). */
  showNote(text: string): void {
    this.outcome.appendChild(element(this.doc, 'div', 'jnh-text jnh-muted jnh-note', text));
  }

  /** Say what "Keep it in the notebook" did. */
  showKept(text: string): void {
    this.outcome.appendChild(element(this.doc, 'div', 'jnh-text jnh-kept', text));
  }

  /**
   * Show a fix's outcome: fixed (and where it landed) or not, the run's own output, its
   * traceback, and the new error's card when jax_nbhelp knows it.
   */
  showOutcome(
    number: number,
    result: IFixResult,
    outputs: IRunOutput[],
    written: string[],
    reveal = true
  ): void {
    const outcome = result.view ?? noAnswer(result);
    this._applied = outcome.markdown;
    this._fillOutcome(outcome, result, outputs, written);
    if (outcome.fold) {
      // the fix worked: the card folds to its header and the outcome, details one click away
      this.setCollapsed(true);
    }
    const area = this.outcome as HTMLElement & { scrollIntoView?: (arg?: unknown) => void };
    if (reveal && typeof area.scrollIntoView === 'function') {
      area.scrollIntoView({ block: 'nearest' });
    }
  }

  private _fillOutcome(
    view: IOutcomeView,
    result: IFixResult,
    outputs: IRunOutput[],
    written: string[]
  ): void {
    const d = this.doc;
    this.outcome.textContent = '';
    this.nested.textContent = '';
    for (const output of outputs) {
      this.outcome.appendChild(element(d, 'pre', `jnh-run-output jnh-${output.name}`, output.text));
    }
    const css =
      view.kind === 'checked'
        ? view.ok
          ? 'jnh-ok'
          : 'jnh-fail'
        : ({ fixed: 'jnh-ok', repeated: 'jnh-ok jnh-repeated', changed: 'jnh-ok jnh-repeated' }[view.kind as string] ??
          'jnh-fail');
    const box = element(d, 'div', `jnh-outcome ${css}`);
    box.appendChild(element(d, 'strong', undefined, `${view.headline} `));
    box.appendChild(d.createTextNode(view.text));
    if (view.error !== null) {
      box.appendChild(element(d, 'div', 'jnh-error', view.error));
    }
    this.outcome.appendChild(box);
    if (view.value) {
      this.outcome.appendChild(element(d, 'pre', 'jnh-value', view.value));
    }
    if (view.restored) {
      this.outcome.appendChild(element(d, 'div', 'jnh-text jnh-muted', view.restored));
    }
    if (view.keep && view.keep_line) {
      this._showKeep(view.keep, view.keep_line);
    } else if (!this.writesCells && view.copies.length > 0) {
      this._showCopies(view.copies);
    } else if (view.ok) {
      const where =
        written.length > 0 && view.written ? view.written.replace('{cells}', written.join(', ')) : view.unchanged;
      if (where) {
        this.outcome.appendChild(element(d, 'div', 'jnh-text', where));
      }
    }
    if (result.traceback) {
      const details = element(d, 'details', 'jnh-details');
      details.appendChild(element(d, 'summary', undefined, 'Traceback of the re-run'));
      details.appendChild(element(d, 'pre', 'jnh-trace', result.traceback));
      this.outcome.appendChild(details);
    }
    if (view.next) {
      this.outcome.appendChild(element(d, 'div', 'jnh-text', view.next));
    }
    const check = view.check ? this.view?.fixes[view.check - 1] : undefined;
    this._outcomeButtons = [];
    if (check) {
      // after a fix that ran on a kernel's card: the checkup of the code as it now stands
      const row = element(d, 'div', 'jnh-others jnh-check-row');
      const button = this._button(check, false);
      this._outcomeButtons.push(button);
      row.appendChild(button);
      this.outcome.appendChild(row);
      this._sync();
    }
  }
}

/** An answer the frontend made itself (the kernel did not answer): its error, as it is. */
function noAnswer(result: IFixResult): IOutcomeView {
  return {
    kind: 'not-applied',
    ok: false,
    headline: '✗ No answer.',
    text: result.error ?? '',
    error: null,
    value: null,
    restored: null,
    keep: null,
    keep_line: null,
    written: null,
    unchanged: null,
    copies: [],
    next: null,
    fold: false,
    markdown: null,
    plain: result.error ?? ''
  };
}
