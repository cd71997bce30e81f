/** The lines shown around a location: the offending line with a little context. */

import { ILocation } from './bundle';

/** [line number, text] of the offending line and `context` lines either side. */
export function windowLines(location: ILocation, context = 2): [number, string][] {
  const lines = location.source ? location.source.split('\n') : [];
  if (location.lineno > 0 && location.lineno <= lines.length) {
    const first = Math.max(1, location.lineno - context);
    const last = Math.min(lines.length, location.lineno + context);
    const shown: [number, string][] = [];
    for (let n = first; n <= last; n++) {
      shown.push([n, lines[n - 1]]);
    }
    return shown;
  }
  return [[location.lineno, location.line]];
}
