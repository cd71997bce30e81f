/**
 * The native card on real bundles (made by tests/bundle_fixtures.py from the catalog's own
 * examples): every bundle satisfies the shared contract (docs/diagnosis.schema.json), and
 * renders as text, with its buttons enabled, or disabled with a reason.
 */

import Ajv2020 from 'ajv/dist/2020';

import schema from '../../docs/diagnosis.schema.json';
import { IDiagnosis, IFixResult, IProgress, isDiagnosis } from '../src/bundle';
import { CardView, OLD_BUNDLE } from '../src/card';
import { frontendCall } from '../src/kernel';
import { cellIndexOf, relativeTo } from '../src/locate';
import fixtures from './fixtures/bundles.json';

const diagnoses = fixtures.diagnoses as unknown as IDiagnosis[];
const results = fixtures.results as unknown as IFixResult[];
const outcomes = (fixtures as any).outcomes as Record<string, IFixResult> & { kept_code: string };

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateDiagnosis = ajv.compile(schema);
const validateResult = ajv.getSchema(`${schema.$id}#/$defs/result`)!;

describe('the contract', () => {
  it('covers the catalog', () => {
    expect(diagnoses.length).toBeGreaterThan(15);
    expect(new Set(diagnoses.map(d => d.code)).size).toBe(diagnoses.length);
  });

  it.each(diagnoses.map(d => [d.code, d]))('%s satisfies the schema', (_code, diagnosis) => {
    const valid = validateDiagnosis(diagnosis);
    expect(validateDiagnosis.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(isDiagnosis(diagnosis)).toBe(true);
  });

  it('fix outcomes satisfy the schema', () => {
    for (const result of results) {
      expect(validateResult(result)).toBe(true);
    }
  });

  it('progress reports satisfy the schema', () => {
    const validateProgress = ajv.getSchema(`${schema.$id}#/$defs/progress`)!;
    const reports = (fixtures as any).progress as IProgress[];
    expect(reports.length).toBe(3);
    for (const report of reports) {
      expect(validateProgress(report)).toBe(true);
    }
    expect(validateProgress({ ...reports[0], fraction: 2 })).toBe(false);
  });

  it('rejects a bundle that breaks it', () => {
    const broken = { ...diagnoses[0], fixes: [{ label: 'x' }] };
    expect(validateDiagnosis(broken)).toBe(false);
  });
});

function card(diagnosis: IDiagnosis, clicks: number[] = []): CardView {
  return new CardView(document, diagnosis, number => clicks.push(number));
}

describe('CardView', () => {
  const flagship = diagnoses.find(d => d.code === 'JNH101')!;
  const classroom = (fixtures as any).classroom as IDiagnosis[];

  it('in classroom mode, says fixes exist and shows no button', () => {
    expect(classroom).toHaveLength(1);
    expect(validateDiagnosis(classroom[0])).toBe(true);
    expect(classroom[0].fixes).toEqual([]);
    expect(classroom[0].hidden_fixes).toBe(flagship.fixes.length);
    const view = card(classroom[0]);
    const text = view.node.textContent ?? '';
    expect(view.buttons).toEqual([]);
    expect(text).toContain(`${flagship.fixes.length} fixes are ready but hidden`);
    expect(text).toContain('%jax_nbhelp fixes');
    expect(text).not.toContain('No mechanical fix');
    expect(text).toContain(`Where: ${classroom[0].location!.label}`);
  });

  it('warns of a long interpreted fix, shows how far it is while it runs, and stops it', () => {
    // what the kernel's view says of a long interpreted fix (show/view.py, tested there)
    const long = JSON.parse(JSON.stringify(flagship)) as IDiagnosis;
    long.view!.fixes[0].long = 'Long: 32,768 grid steps interpreted, roughly 11 min.';
    long.view!.fixes[0].expected = ' of roughly 11 min';
    let stops = 0;
    const view = new CardView(document, long, () => undefined, () => stops++);
    const text = view.node.textContent ?? '';
    expect(text).toContain('Long: 32,768 grid steps interpreted, roughly 11 min');
    view.setRunning(1);
    expect(view.status.textContent).toContain('Running fix 1');
    expect(view.status.textContent).toContain('0 s of roughly 11 min');
    expect(view.buttons.every(b => b.disabled)).toBe(true);
    const stop = view.status.querySelector('button.jnh-stop') as HTMLButtonElement;
    stop.click();
    expect(stops).toBe(1);
    expect(stop.disabled).toBe(true);
    view.setRunning(null);
    view.showOutcome(1, outcomes.stopped, [], []);
    expect(view.outcome.textContent).toContain('■ Stopped. Stopped by you after 4 s.');
    expect(view.status.querySelector('button.jnh-stop')).toBeNull();
  });

  it('draws the kernel\'s progress reports as a bar with the time left', () => {
    const reports = (fixtures as any).progress as IProgress[];
    const running = JSON.parse(JSON.stringify(flagship)) as IDiagnosis;
    running.card_id = reports[0].card_id;
    const view = new CardView(document, running, () => undefined, () => undefined);
    view.setProgress(reports[0]); // not running: ignored
    expect(view.status.textContent).toBe('');
    view.setRunning(1);
    const bar = view.status.querySelector('progress.jnh-progress') as HTMLProgressElement;
    expect(bar.hidden).toBe(true); // no report yet
    view.setProgress(reports[0]);
    expect(bar.hidden).toBe(false);
    expect(bar.value).toBeCloseTo(0.293);
    expect(bar.classList.contains('jnh-progress-estimated')).toBe(false);
    expect(view.status.textContent).toContain('grid step 1,200 of 4,096 · 20 s · about 43 s left');
    view.setProgress(reports[1]); // no steps counted: the estimate drives the bar
    expect(bar.classList.contains('jnh-progress-estimated')).toBe(true);
    expect(view.status.textContent).toContain('about 30 s left');
    view.setProgress(reports[2]); // past the estimate: no bar, no claim of time left
    expect(bar.hidden).toBe(true);
    expect(view.status.textContent).toContain('longer than the roughly 40 s estimated');
    view.setProgress({ ...reports[0], card_id: 'another card' });
    expect(view.status.textContent).toContain('longer than');
    view.setRunning(null);
    expect(view.status.querySelector('progress')).toBeNull();
  });

  it('shows `inline code` as code, and never as markup', () => {
    const marked = JSON.parse(JSON.stringify(flagship)) as IDiagnosis;
    marked.why = 'Run `%jax_nbhelp interpret off` before `if flag:` <b>x</b>';
    marked.view!.cause = marked.why;
    const view = card(marked);
    const codes = Array.from(view.node.querySelectorAll('.jnh-text code')).map(c => c.textContent);
    expect(codes).toEqual(expect.arrayContaining(['%jax_nbhelp interpret off', 'if flag:']));
    expect(view.node.textContent).not.toContain('`%jax_nbhelp');
    expect(view.node.querySelector('.jnh-text b')).toBeNull();
    expect(view.node.textContent).toContain('<b>x</b>');
  });

  it('is a labelled region with a heading and an outcome that is announced', () => {
    const view = card(flagship);
    expect(view.node.getAttribute('role')).toBe('region');
    expect(view.node.getAttribute('aria-label')).toBe(`jax_nbhelp: ${flagship.title}`);
    const title = view.node.querySelector('.jnh-title')!;
    expect(title.getAttribute('role')).toBe('heading');
    expect(view.outcome.getAttribute('aria-live')).toBe('polite');
    expect(view.buttons.every(b => b.tagName === 'BUTTON' && b.textContent)).toBe(true);
  });

  it('folds to one line on request, and by itself after a fix worked', () => {
    const view = card(flagship);
    expect(view.collapsed).toBe(false);
    expect(view.collapseButton.getAttribute('aria-expanded')).toBe('true');
    view.collapseButton.click();
    expect(view.collapsed).toBe(true);
    expect(view.node.classList.contains('jnh-collapsed')).toBe(true);
    expect(view.collapseButton.textContent).toBe('Details ▸');
    view.collapseButton.click();
    expect(view.collapsed).toBe(false);
    view.showOutcome(1, outcomes.failed, [], []);
    expect(view.collapsed).toBe(false); // a failure keeps everything in view
    view.showOutcome(1, outcomes.runtime, [], []);
    expect(view.collapsed).toBe(true);
    expect(view.outcome.textContent).toContain('✓ Fixed.');
  });

  it('copies as Markdown: cause, place, error, the fix applied and the versions', () => {
    const marked = JSON.parse(JSON.stringify(flagship)) as IDiagnosis;
    marked.view!.markdown_versions = '**Versions:** python 3.11.7, jax 0.10.2, jaxlib 0.10.2, backend cpu';
    const view = card(marked);
    expect(view.markdown()).not.toContain('Fix applied');
    view.showOutcome(2, outcomes.rewrite, [], []);
    const text = view.markdown();
    expect(text.startsWith(`### ${marked.title} (jax_nbhelp ${marked.code})\n\n${marked.explanation}`)).toBe(true);
    expect(text).toContain(`**Where:** ${marked.location!.label}`);
    expect(text).toContain(`→ ${marked.location!.line}`);
    expect(text).toContain('```\nValueError: run_scoped lowering outside of Pallas');
    expect(text).toContain(`**Fix applied:** ${marked.fixes[1].label} (fixed)`);
    expect(text).toContain('**Versions:** python 3.11.7, jax 0.10.2, jaxlib 0.10.2, backend cpu');
    const real = diagnoses.find(d => d.versions)!;
    expect(real.versions!.python).toMatch(/^3\./); // the kernel reports them
  });

  it('links a location to its cell where a handler can take the user there', () => {
    const wanted: string[] = [];
    const linked = new CardView(document, flagship, () => undefined, null, null, location =>
      wanted.push(location.label)
    );
    const link = linked.node.querySelector('button.jnh-locate') as HTMLButtonElement;
    expect(link.textContent).toBe(flagship.location!.label);
    link.click();
    expect(wanted).toEqual([flagship.location!.label]);
    // without a handler (a static view), the place is plain text
    expect(card(flagship).node.querySelector('button.jnh-locate')).toBeNull();
    expect(card(flagship).node.textContent).toContain(flagship.location!.label);
  });

  it('finds the cell that ran as In [N], and only one', () => {
    const cells = [
      { executionCount: 1, source: 'a' },
      { executionCount: 3, source: 'b' },
      { executionCount: 3, source: 'c' },
      { executionCount: 4, source: 'd' }
    ];
    expect(cellIndexOf(cells, 4)).toBe(3);
    expect(cellIndexOf(cells, 3)).toBe(-1);
    expect(cellIndexOf(cells, 9)).toBe(-1);
    expect(relativeTo('/home/u/work/ops.py', '/home/u/work')).toBe('ops.py');
    expect(relativeTo('/usr/lib/x.py', '/home/u/work')).toBeNull();
  });

  it('copies the title and the code as separate words', () => {
    const title = card(flagship).node.querySelector('.jnh-title')!;
    expect(title.textContent).toBe(`${flagship.title} jax_nbhelp ${flagship.code}`);
  });

  it('shows the cause, the place and one button per fix', () => {
    const view = card(flagship);
    const text = view.node.textContent ?? '';
    expect(text).toContain(flagship.title);
    expect(text).toContain(flagship.error);
    expect(text).toContain(`Where: ${flagship.location!.label}`);
    expect(view.buttons.map(b => b.textContent)).toEqual(flagship.fixes.map(fix => fix.label));
    expect(view.buttons[1].getAttribute('aria-label')).toContain('(applies to the cell)');
    expect(view.buttons[0].getAttribute('aria-label')).toContain('(runs in the kernel)');
  });

  it('puts the recommended fix first, as the primary button, and the rest after it', () => {
    expect(flagship.recommended).toBe(2); // Remove collective_axes: it lasts
    expect(flagship.recommended_why).toContain('It lasts');
    const view = card(flagship);
    const primary = view.node.querySelector('.jnh-primary button')!;
    expect(primary).toBe(view.buttons[1]);
    expect(primary.classList.contains('jnh-primary-button')).toBe(true);
    const order = Array.from(view.node.querySelectorAll('button.jnh-button')).map(b => b.textContent);
    expect(order[0]).toBe('Remove collective_axes');
    expect(view.node.querySelector('.jnh-others')!.textContent).toContain('Run as one program');
    // one line of cause with its place; the error line (above the card) and the rest are
    // in the closed details
    expect(view.node.querySelector('.jnh-cause')!.textContent).toContain(flagship.location!.label);
    const more = view.node.querySelector('details.jnh-more') as HTMLDetailsElement;
    expect(more.open).toBe(false);
    expect(more.querySelector('.jnh-error')!.textContent).toBe(flagship.error);
    for (const d of diagnoses) {
      const r = d.recommended;
      if (r !== null && r !== undefined) {
        expect(d.fixes[r - 1].safe).toBe(true); // never a fix that changes the numbers
      }
    }
  });

  it('says a sentence the fixes share once', () => {
    const cpu = diagnoses.find(d => d.code === 'JNH201')!;
    const view = card(cpu);
    const shared = view.node.querySelector('.jnh-shared')!.textContent!;
    expect(shared).toContain('The kernel runs as written, simulated on the CPU');
    const safeties = Array.from(view.node.querySelectorAll('.jnh-fix .jnh-text'))
      .map(t => t.textContent ?? '')
      .filter(t => t.startsWith('Safe: '));
    expect(safeties.length).toBeGreaterThan(1);
    expect(safeties.some(t => t.includes('simulated on the CPU'))).toBe(false);
  });

  it('lays out the view the kernel decided, and shows an older bundle as text', () => {
    const cpu = diagnoses.find(d => d.code === 'JNH201')!;
    const view = card(cpu);
    expect(view.node.querySelector('.jnh-cause')!.textContent).toContain(cpu.view!.cause);
    expect(cpu.view!.cause).toBe(cpu.cause);
    expect(view.node.querySelector('.jnh-short')!.textContent).toBe(cpu.view!.recommended_line);
    expect(cpu.view!.shared_safety.length).toBeGreaterThan(0);
    for (const d of diagnoses) {
      // the older fields are the view's, for frontends that read them
      expect(d.view!.recommended).toBe(d.recommended);
      expect(d.view!.fixes.map(f => f.preview)).toEqual(d.fixes.map(f => f.preview));
    }
    const { view: _v, ...older } = cpu;
    const old = card(older);
    expect(old.node.textContent).toContain(cpu.explanation);
    expect(old.node.textContent).toContain(OLD_BUNDLE);
    expect(old.buttons.length).toBe(0);
  });

  it('shows the places the view names, with their lines, and a view saved without them', () => {
    const where = card(flagship).node.querySelectorAll('.jnh-where');
    const places = flagship.view!.places;
    expect(places.map(p => p.heading)).toEqual(['Where:', 'Reached from:']);
    expect(where.length).toBe(places.length);
    places.forEach((place, i) => {
      const text = where[i].textContent!;
      expect(text).toContain(`${place.heading} ${place.label}${place.within}`);
      expect(where[i].querySelectorAll('.jnh-src .jnh-line').length).toBe(place.window.length);
      expect(where[i].querySelector('.jnh-hit')!.textContent).toContain(place.line.trim());
    });
    expect(places[0].within).toBe(', in scaled');
    expect(places.map(p => p.of)).toEqual(['location', 'call_site']);
    // a view saved before places named their field pairs them in order
    const unnamed = places.map(({ of: _of, ...rest }) => rest);
    const paired = card({ ...flagship, view: { ...flagship.view!, places: unnamed } });
    expect(Array.from(paired.node.querySelectorAll('.jnh-where')).map(w => w.textContent))
      .toEqual(Array.from(where).map(w => w.textContent));
    const { places: _p, ...before } = flagship.view!;
    const older = card({ ...flagship, view: before as typeof flagship.view });
    expect(older.node.querySelectorAll('.jnh-where').length).toBe(0);
    expect(older.buttons.length).toBe(flagship.fixes.length);
  });

  it('shows each preview exactly, with what runs', () => {
    const view = card(flagship);
    const previews = Array.from(view.node.querySelectorAll('pre.jnh-preview'));
    expect(previews.map(p => p.textContent)).toEqual(flagship.fixes.map(f => f.preview));
    expect(previews[1].textContent).toContain('Runs: ');
  });

  it('never turns user text into markup', () => {
    const hostile = {
      ...flagship,
      error: 'ValueError: <img src=x onerror=alert(1)>',
      explanation: '<script>alert(1)</script>'
    };
    const view = card(hostile);
    expect(view.node.querySelector('img')).toBeNull();
    expect(view.node.querySelector('script')).toBeNull();
    expect(view.node.textContent).toContain('<script>alert(1)</script>');
  });

  it('disables its buttons with the reason (no kernel, stale)', () => {
    const clicks: number[] = [];
    const view = card(flagship, clicks);
    view.setState({ kind: 'disabled', reason: 'No kernel is running.' });
    expect(view.buttons.every(b => b.disabled)).toBe(true);
    expect(view.status.textContent).toBe('No kernel is running.');
    view.setState({ kind: 'live' });
    expect(view.buttons.every(b => !b.disabled)).toBe(true);
    view.buttons[1].click();
    expect(clicks).toEqual([2]);
  });

  it('keeps a fix that cannot apply disabled', () => {
    const withUnavailable = diagnoses.find(d => d.fixes.some(f => !f.available));
    if (withUnavailable === undefined) {
      return;
    }
    const view = card(withUnavailable);
    withUnavailable.fixes.forEach((fix, i) => {
      expect(view.buttons[i].disabled).toBe(!fix.available);
    });
  });

  it('shows a success, where it landed and the value', () => {
    const view = card(flagship);
    view.showOutcome(2, results[0], [{ name: 'stdout', text: 'hello\n' }], ['In [2]']);
    const text = view.outcome.textContent ?? '';
    expect(text).toContain('✓ Fixed.');
    expect(text).toContain('Written into In [2]');
    expect(text).toContain('Out: 3072.0');
    expect(text).toContain('hello');
  });

  it('says a runtime fix leaves the notebook unchanged', () => {
    const view = card(flagship);
    view.showOutcome(1, outcomes.runtime, [], []);
    expect(view.outcome.textContent).toContain('Your notebook is unchanged');
  });

  it('offers to keep a lasting mode in the notebook', () => {
    const lasting = diagnoses.find(d => d.code === outcomes.kept_code);
    expect(lasting).toBeDefined();
    const number = lasting!.fixes.findIndex(f => f.setup_line) + 1;
    const kept: string[] = [];
    const view = new CardView(document, lasting!, () => undefined, null, line => kept.push(line));
    view.showOutcome(number, outcomes.kept, [], []);
    const text = view.outcome.textContent ?? '';
    const line = lasting!.fixes[number - 1].setup_line!;
    expect(line).toMatch(/^%jax_nbhelp interpret (tpu|gpu|hlo)$/);
    expect(text).toContain(`put ${line} after %load_ext jax_nbhelp`);
    const button = view.outcome.querySelector('button.jnh-keep-button') as HTMLButtonElement;
    button.click();
    expect(kept).toEqual([line]);
    expect(button.disabled).toBe(true);
  });

  it('does not call a fix that ran statements again plain "Fixed"', () => {
    const view = card(flagship);
    view.showOutcome(1, outcomes.repeated, [], []);
    const text = view.outcome.textContent ?? '';
    expect(text).toContain('Ran, but not as if once.');
    expect(text).toContain(outcomes.repeated.repeated![0]);
    expect(view.collapsed).toBe(false);
    expect(text).not.toContain('✓ Fixed.');
  });

  it('shows a failure with its traceback and the new diagnosis follows', () => {
    const view = card(flagship);
    view.showOutcome(1, results[1], [], []);
    const text = view.outcome.textContent ?? '';
    expect(text).toContain('✗ Not fixed.');
    expect(text).toContain('its diagnosis follows');
    expect(results[1].diagnosis && isDiagnosis(results[1].diagnosis)).toBe(true);
  });

  it('tells a click on a card the kernel forgot', () => {
    const view = card(flagship);
    view.showOutcome(1, results[2], [], []);
    expect(view.outcome.textContent).toContain('no longer knows this diagnosis');
  });

  it('refuses with the reason and changes nothing', () => {
    const view = card(flagship);
    view.showRefusal(2, 'In [2] was edited since the error.');
    expect(view.outcome.textContent).toContain('✗ Not applied.');
    expect(view.outcome.textContent).toContain('In [2] was edited since the error.');
  });
});

describe('frontendCall', () => {
  it('quotes its arguments as Python literals', () => {
    expect(frontendCall('apply', 'ab"c', 2)).toBe(
      '__import__("jax_nbhelp.shell.frontend").shell.frontend.apply("ab\\"c", 2)'
    );
    // the bundle's session goes with the card id; an older bundle has none
    expect(frontendCall('status', 'id', null)).toBe(
      '__import__("jax_nbhelp.shell.frontend").shell.frontend.status("id", None)'
    );
  });

  it('offers the kernel checkup after its fixes, and again beside a fixed outcome', () => {
    const flagship = diagnoses.find(d => d.code === 'JNH101')!;
    const clicks: number[] = [];
    const view = card(flagship, clicks);
    const check = flagship.view!.check!;
    expect(flagship.fixes[check - 1].kind).toBe('check');
    expect(flagship.view!.recommended).not.toBe(check); // never the primary button
    expect(view.buttons[check - 1].classList.contains('jnh-secondary')).toBe(true);
    expect(view.buttons[check - 1].textContent).toBe('Check this kernel');
    view.showOutcome(2, outcomes.rewrite, [], []);
    const again = view.outcome.querySelector('.jnh-check-row button') as HTMLButtonElement;
    expect(again.textContent).toBe('Check this kernel');
    again.click();
    expect(clicks).toEqual([check]);
    // its answer is an outcome of its own, never "Fixed"
    view.showOutcome(check, outcomes.checked, [], []);
    expect(view.outcome.textContent).toContain('✓ Checked.');
    expect(view.outcome.textContent).toContain('nothing found');
    expect(view.outcome.textContent).not.toContain('Fixed');
    expect(view.outcome.querySelector('.jnh-outcome.jnh-ok')).not.toBeNull();
    expect(view.outcome.querySelector('.jnh-check-row')).toBeNull();
  });
});

describe('the general view (JNH000)', () => {
  const general = diagnoses.find(d => d.code === 'JNH000')!;

  it('claims no cause and offers no fix, in one line with its details folded', () => {
    expect(general.general).toBe(true);
    const card = new CardView(document, general, () => undefined);
    const text = card.node.textContent ?? '';
    expect(text).toContain(general.view!.banner!);
    expect(general.view!.banner_kind).toBe('general');
    expect(text).not.toContain('No mechanical fix is correct');
    expect(card.node.querySelectorAll('button.jnh-button').length).toBe(0);
    expect(card.node.querySelector('details.jnh-more summary')?.textContent).toContain(
      'what the line worked on'
    );
  });
});
