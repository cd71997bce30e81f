/**
 * The diagnosis bundle, as the kernel publishes it. The written contract is
 * `docs/diagnosis.schema.json`; tests on the Python and TypeScript sides validate real
 * bundles against it.
 */

/** The mime type of a diagnosis (the card renders it). */
/** The page's mark (document.body.dataset) that the JupyterLab extension is running: the
 *  anywidget card then draws nothing, as the native card shows the diagnosis. */
export const NATIVE_CARD = 'jnhNativeCard';
export const DIAGNOSIS_MIME = 'application/vnd.jax-nbhelp.diagnosis+json';

/** The mime type of a fix's outcome, which `jax_nbhelp.shell.frontend` displays. */
export const RESULT_MIME = 'application/vnd.jax-nbhelp.result+json';

/** While a fix runs: how far it is, one display the kernel updates in place. */
export const PROGRESS_MIME = 'application/vnd.jax-nbhelp.progress+json';

/** A line of user code: a notebook cell (by execution count) or a file. */
export interface ILocation {
  kind: 'cell' | 'file' | 'code';
  filename: string;
  lineno: number;
  line: string;
  function: string;
  /** The execution count of the cell (In [N]), or null for a file. */
  cell: number | null;
  source: string | null;
  rewritten: boolean;
  /** Where, as a user says it: "In [2], line 5". */
  label: string;
}

/** One piece of a cell that a fix runs: whole top-level statements, at their lines. */
export interface IRun {
  label: string;
  cell: number | null;
  source: string;
  changed: boolean;
  first_line: number;
  last_line: number;
  why: string;
  where: string;
  resumed: boolean;
}

/** A whole cell before and after a rewrite: what "Apply to cell" writes. */
export interface IEdit {
  label: string;
  /** The execution count of the cell to change. */
  cell: number | null;
  /** What the cell must still hold for the edit to apply. */
  original: string;
  /** What the cell holds after the fix. */
  source: string;
}

/** One way out of the error. */
export interface IFix {
  label: string;
  summary: string;
  safety: string;
  safe: boolean;
  /** Safe up to float rounding: the view's badge and recommended line say so. */
  rounding?: boolean;
  /** 'check': the kernel checkup offered on a kernel's card, not a fix. */
  kind: 'rewrite' | 'runtime' | 'check';
  preview: string;
  diff: string;
  available: boolean;
  unavailable: string | null;
  runs: IRun[];
  edits: IEdit[];
  not_rerun: string[];
  /** How long the kernel it runs takes in an interpreter, when known. */
  estimate?: IEstimate | null;
  /**
   * A fix that leaves a mode on for the rest of the kernel: the line that turns it on,
   * for the notebook's first cell (after `%load_ext jax_nbhelp`).
   */
  setup_line?: string | null;
  /** `safety` less the diagnosis's `shared_safety` (said once, above the fixes). */
  own_safety?: string;
}

/** The rough cost of an interpreted kernel: grid steps and seconds on a small CPU. */
export interface IEstimate {
  steps: number;
  mode: 'hlo' | 'tpu' | 'gpu';
  seconds: number;
  long: boolean;
  /** Corrected by what an interpreted fix really took on this machine. */
  calibrated?: boolean;
}

/**
 * How far a running fix is (the schema's `progress`). `steps` are grid steps counted by
 * the interpreter's per-step hook (TPU interpret mode); without it (null) the bar follows
 * the time estimate.
 */
export interface IProgress {
  card_id: string;
  fix: number;
  seconds: number;
  steps: number | null;
  total: number | null;
  seconds_left: number | null;
  /** 0..1 for the bar; null: draw none. */
  fraction: number | null;
  /** "grid step 1,200 of 4,096 · 40 s · about 1 min left" */
  text: string;
}

/** A diagnosed error: what happened, where, why, and the ways out. */
export interface IDiagnosis {
  version: 1;
  code: string;
  name: string;
  title: string;
  explanation: string;
  why: string;
  error: string;
  location: ILocation | null;
  call_site: ILocation | null;
  notes: string[];
  fixes: IFix[];
  /** Fixes kept back by classroom mode (`fixes` is then empty); absent in older bundles. */
  hidden_fixes?: number;
  /** The kernel's handle for this diagnosis (null: not appliable from the frontend). */
  card_id?: string | null;
  /** The kernel process that made it; another one means the kernel restarted. */
  session?: string | null;
  /** The fix the card puts first, as its primary button (1-based); null: none is safe. */
  recommended?: number | null;
  /** Why, in one sentence. */
  recommended_why?: string | null;
  /** The cause in one sentence: the card's first line (the kernel decides it). */
  cause?: string;
  /** Safety sentences two or more fixes share: said once, above the fixes. */
  shared_safety?: string[];
  /** The line beside the recommended fix's button. */
  recommended_line?: string | null;
  /** What the kernel runs, for a bug report ("Copy as Markdown"); null where unknown. */
  versions?: IVersions | null;
  /**
   * The general view (code JNH000): JAX raised the error and no catalog entry knows it.
   * The card claims no cause and offers no fix. Absent in older bundles.
   */
  general?: boolean;
  /** The transformations the failing code ran under, outermost first. */
  transforms?: string[];
  /** What the failing line worked on: expressions and their shapes and dtypes. */
  values?: { text: string; summary: string }[];
  /** What JAX's message suggests. */
  hints?: string[];
  /** JAX's page for the error. */
  doc_url?: string | null;
  /** Everything the card says, decided by the kernel (`show/view.py`); absent in bundles
   *  of releases before it, which the renderer shows as text only. */
  view?: ICardView;
}

/** What the card says about one fix. */
export interface IFixView {
  number: number;
  label: string;
  /** "Fix 2: Interpret mode from now on" */
  heading: string;
  summary: string;
  safe: boolean;
  /** "Safe:" or "Changes what the program computes:" */
  badge: string;
  /** Its own safety: what the fixes share is the card's `shared_line`. */
  safety: string;
  available: boolean;
  /** "Cannot apply here: ..." */
  unavailable: string | null;
  /** A long interpreted run, said before it starts. */
  long: string | null;
  /** A fix that leaves the notebook as it is says so. */
  kernel_only: string | null;
  preview: string;
  /** "applies to the cell" or "runs in the kernel" */
  action: string;
  button_title: string;
  button_aria: string;
  /** "Running fix 2, “Interpret mode”…" */
  running: string;
  /** " of roughly 8 min", or "" */
  expected: string;
  text: string;
}

/** A place the card points at, as every form of the card shows it (the kernel's `PlaceView`). */
export interface IPlaceView {
  /** "Where:" or "Reached from:" */
  heading: string;
  /** The diagnosis's field it shows, where its link goes (absent in a view saved before). */
  of?: 'location' | 'call_site';
  /** "In [3], line 5" */
  label: string;
  /** ", in scaled" (the function it is in), or "" at a cell's or module's top level. */
  within: string;
  lineno: number;
  line: string;
  /** The numbered lines a card shows around it. */
  window: [number, string][];
}

/** What the card says, in the order it says it (the kernel's `CardView`). */
export interface ICardView {
  code: string;
  title: string;
  code_label: string;
  region_label: string;
  cause: string;
  /** Where it happened, after the cause (null: nowhere known). */
  place: string | null;
  /** Where it happened, then the call that reached it (the details' places). */
  places: IPlaceView[];
  /** The cause names the place: a card that cannot link to it leaves it out. */
  place_named: boolean;
  /** What stands in place of fixes. */
  banner: string | null;
  banner_kind: 'hidden' | 'general' | 'no-fix' | null;
  recommended: number | null;
  recommended_why: string | null;
  recommended_heading: string | null;
  recommended_line: string | null;
  order: number[];
  others: number[];
  others_heading: string | null;
  shared_safety: string[];
  shared_line: string | null;
  fixes: IFixView[];
  /** The kernel checkup's number among the fixes, where the card offers it. */
  check?: number | null;
  details_summary: string;
  magic_hint: string | null;
  text_fixes_heading: string;
  general_note: string | null;
  hints_line: string | null;
  /** "Copy as Markdown", up to the error; the fix applied and the versions follow. */
  markdown: string;
  markdown_versions: string | null;
}

/** A rewritten cell that a card which cannot edit the notebook gives the user to copy. */
export interface ICopyView {
  label: string;
  sentence: string;
  source: string;
}

/** What the card says when a fix has run (the kernel's `OutcomeView`). */
export interface IOutcomeView {
  kind: 'fixed' | 'repeated' | 'changed' | 'checked' | 'stopped' | 'failed' | 'not-applied';
  ok: boolean;
  headline: string;
  text: string;
  error: string | null;
  /** "Out: 3.0" */
  value: string | null;
  restored: string | null;
  /** How to keep a mode in the notebook (inline `code`), and its set-up line. */
  keep: string | null;
  keep_line: string | null;
  /** With "{cells}": where the host wrote the fixed cells. */
  written: string | null;
  /** Said instead of `written` when the host wrote none. */
  unchanged: string | null;
  copies: ICopyView[];
  /** About the new error's card, or that there is none. */
  next: string | null;
  /** The card folds to its header and this outcome. */
  fold: boolean;
  markdown: string | null;
  plain: string;
  /** After a fix that ran on a kernel's card: the number of its kernel checkup. */
  check?: number | null;
  check_line?: string | null;
}

export interface IVersions {
  python?: string | null;
  jax?: string | null;
  jaxlib?: string | null;
  backend?: string | null;
}

/** What happened when a fix ran in the kernel. */
export interface IFixResult {
  /** False when the kernel does not know the card (restarted, or another session). */
  known: boolean;
  ok?: boolean;
  fix?: string;
  error?: string | null;
  seconds?: number;
  restored?: string[];
  /**
   * What ran again that had run before the error (a loop from its start): the fix ran,
   * but not as if the fixed code had run once.
   */
  repeated?: string[];
  /** The user stopped the fix (an interrupt); what it changed was put back. */
  stopped?: boolean;
  traceback?: string | null;
  /** The failing cell's last value, as IPython prints it, when the fix succeeded. */
  value?: string | null;
  /** The new error's diagnosis, when jax_nbhelp knows it (fixes chain). */
  diagnosis?: IDiagnosis | null;
  /** The rewritten cells whose source differs from what the user's cells hold: what a
   *  card that cannot edit the notebook (the anywidget card) gives the user to copy. */
  copy?: IEdit[] | null;
  /** What the card says of it (absent where the frontend made the answer itself). */
  view?: IOutcomeView;
}

/** Whether `value` looks like a diagnosis bundle this frontend can show. */
export function isDiagnosis(value: unknown): value is IDiagnosis {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const data = value as Record<string, unknown>;
  return (
    data.version === 1 &&
    typeof data.code === 'string' &&
    typeof data.title === 'string' &&
    Array.isArray(data.fixes)
  );
}

/** Whether `value` is a diagnosis whose card the kernel described (its `view`). */
export function hasView(value: IDiagnosis): value is IDiagnosis & { view: ICardView } {
  const view = value.view as unknown;
  return (
    typeof view === 'object' &&
    view !== null &&
    Array.isArray((view as ICardView).fixes) &&
    (view as ICardView).fixes.length === value.fixes.length
  );
}
