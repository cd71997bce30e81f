/**
 * Locations that link: "In [3], line 5" selects that cell, scrolls to it and puts the
 * cursor on the line, selected; a helper in a `.py` file under the server's root opens in
 * the editor at the line. What cannot be reached (a file outside the root, a cell run
 * again since) stays plain text, or says why on click.
 */

import { ILocation } from './bundle';
import { ICellState } from './apply';

/** Opens `path` (relative to the server root) in an editor at `line` (0-based). */
export type FileOpener = (path: string, line: number) => Promise<boolean>;

let opener: FileOpener | null = null;

/** Set by the plugin, which holds the app's commands. */
export function setFileOpener(open: FileOpener | null): void {
  opener = open;
}

export function fileOpener(): FileOpener | null {
  return opener;
}

/** The index of the one cell that ran as In [count], or -1 (none, or it ran again). */
export function cellIndexOf(cells: ICellState[], count: number): number {
  const found = cells
    .map((cell, index) => ({ cell, index }))
    .filter(({ cell }) => cell.executionCount === count);
  return found.length === 1 ? found[0].index : -1;
}

/** The server root, from the page's config (what PageConfig reads); null when unknown. */
export function serverRoot(doc: Document): string | null {
  const script = doc.getElementById('jupyter-config-data');
  try {
    const root = JSON.parse(script?.textContent ?? '{}').serverRoot;
    return typeof root === 'string' && root ? root : null;
  } catch {
    return null;
  }
}

/** `filename` relative to `root`, or null when it lies outside it. */
export function relativeTo(filename: string, root: string | null): string | null {
  if (!root) {
    return null;
  }
  const base = root.replace(/\/+$/, '') + '/';
  return filename.startsWith(base) ? filename.slice(base.length) : null;
}

/** Whether a click on `location` can take the user there. */
export function canLocate(doc: Document, location: ILocation): boolean {
  if (location.kind === 'cell') {
    return location.cell !== null;
  }
  if (location.kind === 'file') {
    return opener !== null && relativeTo(location.filename, serverRoot(doc)) !== null;
  }
  return false;
}
