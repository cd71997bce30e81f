/**
 * The native card: the diagnosis as DOM, built with `textContent` only (user code, error
 * text and JAX's messages never become markup). Pure DOM, unit-tested in jsdom; the
 * renderer wires its buttons to the kernel and the notebook.
 */

import { IDiagnosis, IEdit, IFix, IFixResult, ILocation, IProgress } from './bundle';
import { cardMarkdown, IApplied } from './markdown';
import { canLocate } from './locate';
import { windowLines } from './window';

/** What the general view's card says in place of fixes (JNH000: no entry knows the error). */
export const GENERAL_LINE =
  'General view: no cause claimed, no fix. The details show what the line worked on and ' +
  'what JAX suggests.';

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

/** The offending line with a little context, numbered, the line itself marked. */
export function sourceWindow(doc: Document, location: ILocation, context = 2): HTMLElement {
  const pre = element(doc, 'pre', 'jnh-src');
  const shown = windowLines(location, context);
  const width = String(shown[shown.length - 1][0]).length;
  shown.forEach(([number, text], i) => {
    const hit = number === location.lineno;
    const row = element(doc, 'span', hit ? 'jnh-line jnh-hit' : 'jnh-line');
    row.appendChild(
      element(doc, 'span', 'jnh-ln', `${String(number).padStart(width)} ${hit ? '→' : ' '} `)
    );
    row.appendChild(doc.createTextNode(text));
    pre.appendChild(row);
    if (i < shown.length - 1) {
      pre.appendChild(doc.createTextNode('\n'));
    }
  });
  return pre;
}

function locationBlock(
  doc: Document,
  heading: string,
  location: ILocation,
  onLocate: ((location: ILocation) => void) | null
): HTMLElement {
  const block = element(doc, 'div', 'jnh-where');
  const title = element(doc, 'div', 'jnh-heading', `${heading} `);
  title.appendChild(placeLink(doc, location, onLocate, location.label));
  if (location.function && !location.function.startsWith('<')) {
    title.appendChild(element(doc, 'span', 'jnh-muted', `, in ${location.function}`));
  }
  block.appendChild(title);
  block.appendChild(sourceWindow(doc, location));
  return block;
}

/** `fix.preview` line by line, diff lines marked; its text is exactly the preview. */
export function previewBlock(doc: Document, fix: IFix): HTMLElement {
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

/** Seconds as a person reads them: "40 s", "8 min", "1.5 h". */
export function duration(seconds: number): string {
  if (seconds < 90) {
    return `${Math.max(1, Math.round(seconds))} s`;
  }
  if (seconds < 90 * 60) {
    return `${Math.round(seconds / 60)} min`;
  }
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** What a fix's button says: its name (what a click does is in its title and aria-label). */
export function buttonLabel(_number: number, fix: IFix): string {
  return fix.label;
}

/**
 * A place that links to itself where the frontend can go there (the cell, its line
 * selected, or the file at the line); else `plain`, as text.
 */
function placeLink(
  doc: Document,
  location: ILocation,
  onLocate: ((location: ILocation) => void) | null,
  plain: string
): HTMLElement {
  if (onLocate && canLocate(doc, location)) {
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

/** The card for one diagnosis; a failed fix nests the card of its new error. */
export class CardView {
  readonly node: HTMLElement;
  readonly buttons: HTMLButtonElement[] = [];
  readonly status: HTMLElement;
  readonly outcome: HTMLElement;
  readonly nested: HTMLElement;
  readonly copyButton: HTMLButtonElement;
  readonly collapseButton: HTMLButtonElement;
  private _applied: IApplied | null = null;
  private _state: CardState = { kind: 'live' };
  private _running = false;
  private _timer: number | null = null;
  private _reported = false;
  private _runningLabel = '';

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
    this.node = element(doc, 'div', 'jnh-native');
    this.node.dataset.jnhCode = d.code;
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', `jax_nbhelp: ${d.title}`);
    const header = element(doc, 'div', 'jnh-header');
    const title = element(doc, 'div', 'jnh-title', d.title);
    title.setAttribute('role', 'heading');
    title.setAttribute('aria-level', '3');
    // a space, so that copied text does not run the title into the code
    title.appendChild(doc.createTextNode(' '));
    title.appendChild(element(doc, 'span', 'jnh-code', `jax_nbhelp ${d.code}`));
    header.appendChild(title);
    const tools = element(doc, 'span', 'jnh-tools');
    this.copyButton = element(doc, 'button', 'jnh-tool jnh-copy-md', 'Copy as Markdown');
    this.copyButton.type = 'button';
    this.copyButton.title = 'The diagnosis, its place, the fix applied and the versions, for an issue';
    this.copyButton.addEventListener('click', () => void this.copyMarkdown());
    this.collapseButton = element(doc, 'button', 'jnh-tool jnh-collapse');
    this.collapseButton.type = 'button';
    this.collapseButton.addEventListener('click', () => this.setCollapsed(!this.collapsed));
    tools.appendChild(this.copyButton);
    tools.appendChild(this.collapseButton);
    header.appendChild(tools);
    this.node.appendChild(header);
    // The cause in one sentence, with the place it happened (the error line itself sits
    // right above the card, in the traceback).
    const cause = textBlock(doc, 'jnh-text jnh-cause', d.cause ?? d.explanation);
    if (d.location) {
      cause.appendChild(doc.createTextNode(' '));
      cause.appendChild(placeLink(doc, d.location, onLocate, `(${d.location.label})`));
    }
    this.node.appendChild(cause);
    const hidden = d.hidden_fixes ?? 0;
    if (hidden > 0) {
      const what = hidden === 1 ? '1 fix is' : `${hidden} fixes are`;
      this.node.appendChild(
        element(
          doc,
          'div',
          'jnh-text jnh-muted jnh-hidden-fixes',
          `Classroom mode: ${what} ready but hidden. Try the change yourself first; ` +
            '%jax_nbhelp fixes shows them.'
        )
      );
    } else if (d.general) {
      // the general view knows no cause, so it cannot say that no fix is correct
      this.node.appendChild(element(doc, 'div', 'jnh-text jnh-muted jnh-general', GENERAL_LINE));
    } else if (d.fixes.length === 0) {
      this.node.appendChild(
        element(
          doc,
          'div',
          'jnh-text jnh-muted',
          'No mechanical fix is correct here; the explanation says what to change.'
        )
      );
    }
    // One button per fix, made in the fixes' order (buttons[n - 1] is fix n); the
    // recommended one comes first, as the primary button, the others after it.
    d.fixes.forEach((fix, i) => this.buttons.push(this._button(i + 1, fix, i + 1 === d.recommended)));
    const recommended = d.recommended ?? null;
    if (recommended !== null && d.fixes[recommended - 1]) {
      const primary = element(doc, 'div', 'jnh-primary');
      primary.appendChild(this.buttons[recommended - 1]);
      primary.appendChild(textBlock(doc, 'jnh-text jnh-short', d.recommended_line ?? d.recommended_why ?? ''));
      this.node.appendChild(primary);
    }
    const others = d.fixes.map((_fix, i) => i + 1).filter(n => n !== recommended);
    if (others.length > 0) {
      const row = element(doc, 'div', 'jnh-others');
      if (recommended !== null) {
        row.appendChild(element(doc, 'span', 'jnh-muted', 'Other fixes: '));
      }
      for (const n of others) {
        row.appendChild(this.buttons[n - 1]);
      }
      this.node.appendChild(row);
    }
    // Everything else, one click away: the error line, the whole explanation, the places
    // with their lines, why, the notes, and each fix's safety and exactly what it runs.
    const more = element(doc, 'details', 'jnh-more');
    more.appendChild(
      element(
        doc,
        'summary',
        undefined,
        d.general ? 'Details: where it came from, and what the line worked on' : 'Details: why, and what each fix runs'
      )
    );
    more.appendChild(element(doc, 'div', 'jnh-error', d.error));
    more.appendChild(textBlock(doc, 'jnh-text', d.explanation));
    if (d.location) {
      more.appendChild(locationBlock(doc, 'Where:', d.location, onLocate));
    }
    if (d.call_site) {
      more.appendChild(locationBlock(doc, 'Reached from:', d.call_site, onLocate));
    }
    more.appendChild(element(doc, 'div', 'jnh-heading', 'Why:'));
    more.appendChild(textBlock(doc, 'jnh-text', d.why));
    for (const note of d.notes) {
      const text = element(doc, 'div', 'jnh-text');
      text.appendChild(element(doc, 'strong', undefined, 'Note: '));
      appendInline(doc, text, note);
      more.appendChild(text);
    }
    // the kernel decides what the fixes share (core/glance.py); older bundles: nothing
    const shared = d.shared_safety ?? [];
    if (shared.length > 0) {
      more.appendChild(textBlock(doc, 'jnh-text jnh-shared', `All of these fixes: ${shared.join(' ')}`));
    }
    d.fixes.forEach((fix, i) => more.appendChild(this._fixBlock(i + 1, fix)));
    this.node.appendChild(more);
    this.status = element(doc, 'div', 'jnh-status');
    this.outcome = element(doc, 'div', 'jnh-outcome-area');
    this.outcome.setAttribute('aria-live', 'polite');
    this.nested = element(doc, 'div', 'jnh-nested');
    this.node.appendChild(this.status);
    this.node.appendChild(this.outcome);
    this.node.appendChild(this.nested);
    this.setCollapsed(false);
    this._sync();
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
    return cardMarkdown(this.diagnosis, this._applied);
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

  private _button(number: number, fix: IFix, primary: boolean): HTMLButtonElement {
    const doc = this.doc;
    const css = ['jnh-button', primary ? 'jnh-primary-button' : 'jnh-secondary'];
    if (!fix.safe) {
      css.push('jnh-warn');
    }
    const button = element(doc, 'button', css.join(' '));
    button.type = 'button';
    button.textContent = buttonLabel(number, fix);
    // what a click does, said to the pointer and to a screen reader, not in the label
    const action = fix.edits.length > 0 ? 'applies to the cell' : 'runs in the kernel';
    button.title = `Fix ${number}, ${action}: ${fix.summary}`;
    button.setAttribute('aria-label', `Fix ${number}: ${fix.label} (${action})`);
    button.addEventListener('click', () => this.onApply(number));
    return button;
  }

  /** A fix in the details: what it does, how safe, and exactly what it runs. */
  private _fixBlock(number: number, fix: IFix): HTMLElement {
    const doc = this.doc;
    const block = element(doc, 'div', 'jnh-fix');
    block.appendChild(element(doc, 'div', 'jnh-fix-title', `Fix ${number}: ${fix.label}`));
    block.appendChild(textBlock(doc, 'jnh-text', fix.summary));
    const safety = element(doc, 'div', 'jnh-text');
    safety.appendChild(
      element(
        doc,
        'span',
        fix.safe ? 'jnh-safe' : 'jnh-unsafe',
        fix.safe ? 'Safe: ' : 'Changes what the program computes: '
      )
    );
    appendInline(doc, safety, fix.own_safety ?? fix.safety);
    block.appendChild(safety);
    if (fix.unavailable) {
      block.appendChild(
        textBlock(doc, 'jnh-text jnh-unavailable', `Cannot apply here: ${fix.unavailable}`)
      );
    }
    if (fix.estimate && fix.estimate.long) {
      block.appendChild(
        element(
          doc,
          'div',
          'jnh-text jnh-estimate',
          `Long: ${fix.estimate.steps.toLocaleString('en-US')} grid steps interpreted, ` +
            `roughly ${duration(fix.estimate.seconds)}. The card shows how far it is while it ` +
            'runs, and Stop ends only the fix.'
        )
      );
    }
    if (!fix.unavailable && fix.edits.length === 0) {
      block.appendChild(
        element(
          doc,
          'div',
          'jnh-text jnh-muted',
          'Runs in the kernel only: your notebook itself stays as it is.'
        )
      );
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
    if (number !== null) {
      const fix = this.diagnosis.fixes[number - 1];
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
        const expected = fix.estimate ? ` of roughly ${duration(fix.estimate.seconds)}` : '';
        text.textContent = `Running fix ${number}, “${fix.label}”… ${seconds} s${expected}`;
      };
      this._reported = false;
      this._runningLabel = `Running fix ${number}, “${fix.label}”…`;
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
    this.buttons.forEach((button, i) => {
      button.disabled = !live || !this.diagnosis.fixes[i].available;
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
    const fix = this.diagnosis.fixes[number - 1];
    const box = element(this.doc, 'div', 'jnh-outcome jnh-fail');
    box.appendChild(element(this.doc, 'strong', undefined, '✗ Not applied. '));
    box.appendChild(this.doc.createTextNode(`“${fix.label}”: ${reason}`));
    this.outcome.appendChild(box);
  }

  /**
   * After a fix that leaves a mode on: how to keep it in the notebook, with a button that
   * writes the line there when the card can reach the notebook.
   */
  private showKeep(line: string): void {
    const d = this.doc;
    const keep = element(d, 'div', 'jnh-text jnh-keep');
    keep.appendChild(d.createTextNode('It stays on for this kernel. To keep it in the notebook, put '));
    keep.appendChild(element(d, 'code', undefined, line));
    keep.appendChild(d.createTextNode(' after '));
    keep.appendChild(element(d, 'code', undefined, '%load_ext jax_nbhelp'));
    keep.appendChild(
      d.createTextNode(' in its first cell, so that a fresh run of the notebook needs no click. ')
    );
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
  private _showCopies(edits: IEdit[]): void {
    const d = this.doc;
    for (const edit of edits) {
      const line = element(
        d,
        'div',
        'jnh-text',
        `Fixed source of ${edit.label}: copy it into the cell (the kernel ran it; this ` +
          'card cannot edit your notebook). '
      );
      const button = element(d, 'button', 'jnh-tool jnh-copy-source', 'Copy') as HTMLButtonElement;
      button.type = 'button';
      button.addEventListener('click', () => {
        const clipboard = d.defaultView?.navigator.clipboard;
        const done = (copied: boolean) => {
          button.textContent = copied ? 'Copied' : 'Copy failed (select the text)';
        };
        if (clipboard) {
          clipboard.writeText(edit.source).then(() => done(true), () => done(false));
        } else {
          done(false);
        }
      });
      line.appendChild(button);
      this.outcome.appendChild(line);
      this.outcome.appendChild(element(d, 'pre', 'jnh-copy', edit.source));
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
    const fix = this.diagnosis.fixes[number - 1];
    this._applied = { label: fix.label, ok: !!result.ok, error: result.error };
    this._fillOutcome(number, result, outputs, written);
    const fixed = !!result.ok && (result.repeated ?? []).length === 0;
    if (fixed) {
      // the fix worked: the card folds to its header and the outcome, details one click away
      this.setCollapsed(true);
    }
    const outcome = this.outcome as HTMLElement & { scrollIntoView?: (arg?: unknown) => void };
    if (reveal && typeof outcome.scrollIntoView === 'function') {
      outcome.scrollIntoView({ block: 'nearest' });
    }
  }

  private _fillOutcome(
    number: number,
    result: IFixResult,
    outputs: IRunOutput[],
    written: string[]
  ): void {
    const d = this.doc;
    const fix = this.diagnosis.fixes[number - 1];
    this.outcome.textContent = '';
    this.nested.textContent = '';
    for (const output of outputs) {
      this.outcome.appendChild(element(d, 'pre', `jnh-run-output jnh-${output.name}`, output.text));
    }
    const box = element(d, 'div', result.ok ? 'jnh-outcome jnh-ok' : 'jnh-outcome jnh-fail');
    if (!result.known) {
      box.appendChild(element(d, 'strong', undefined, '✗ Not applied. '));
      box.appendChild(
        d.createTextNode(
          'The kernel no longer knows this diagnosis (it restarted): run the failing cell ' +
            'again for a fresh one.'
        )
      );
      this.outcome.appendChild(box);
      return;
    }
    if (result.ok) {
      const repeated = result.repeated ?? [];
      const took = `“${fix.label}” ran without error in ${(result.seconds ?? 0).toFixed(2)} s`;
      if (repeated.length > 0) {
        box.classList.add('jnh-repeated');
        box.appendChild(element(d, 'strong', undefined, '⚠ Ran, but not as if once. '));
        box.appendChild(
          d.createTextNode(`${took}, and ran again what had run before the error: ${repeated.join('; ')}.`)
        );
      } else {
        box.appendChild(element(d, 'strong', undefined, '✓ Fixed. '));
        box.appendChild(d.createTextNode(`${took}.`));
      }
      this.outcome.appendChild(box);
      if (result.value) {
        this.outcome.appendChild(element(d, 'pre', 'jnh-value', `Out: ${result.value}`));
      }
      const where =
        written.length > 0
          ? `Written into ${written.join(', ')} (Ctrl+Z in a cell undoes it).`
          : fix.edits.length === 0
            ? 'Your notebook is unchanged: this fix ran in the kernel only, so a fresh run ' +
              'of the notebook fails again until the code changes.'
            : 'Your cells already held the fixed source.';
      if (fix.setup_line) {
        this.showKeep(fix.setup_line);
      } else if (!this.writesCells && fix.edits.length > 0) {
        this._showCopies(result.copy ?? fix.edits);
      } else {
        this.outcome.appendChild(element(d, 'div', 'jnh-text', where));
      }
      return;
    }
    if (result.stopped) {
      box.appendChild(element(d, 'strong', undefined, '■ Stopped. '));
      box.appendChild(d.createTextNode(result.error ?? `“${fix.label}” was stopped.`));
      this.outcome.appendChild(box);
      return;
    }
    box.appendChild(element(d, 'strong', undefined, '✗ Not fixed. '));
    box.appendChild(d.createTextNode(`“${fix.label}” failed:`));
    box.appendChild(element(d, 'div', 'jnh-error', result.error ?? 'unknown error'));
    this.outcome.appendChild(box);
    if (result.restored && result.restored.length > 0) {
      this.outcome.appendChild(
        element(d, 'div', 'jnh-text jnh-muted', `Undone: ${result.restored.join(', ')} as before the fix.`)
      );
    }
    if (result.traceback) {
      const details = element(d, 'details', 'jnh-details');
      details.appendChild(element(d, 'summary', undefined, 'Traceback of the re-run'));
      details.appendChild(element(d, 'pre', 'jnh-trace', result.traceback));
      this.outcome.appendChild(details);
    }
    if (result.diagnosis) {
      // a chain: the new error's fixes are built on the code this fix ran
      const start =
        fix.edits.length > 0 ? ` Its fixes start from your code as “${fix.label}” rewrote it.` : '';
      this.outcome.appendChild(
        element(d, 'div', 'jnh-text', `jax_nbhelp knows the new error; its diagnosis follows.${start}`)
      );
    }
  }
}
