/**
 * "Copy as Markdown": a card as text for an issue or a chat. The title, the code, the cause,
 * the location with its source lines, the error, the fix that was applied and how it
 * ended, and the versions the kernel reported (python, jax, jaxlib, backend).
 */

import { IDiagnosis, ILocation } from './bundle';
import { windowLines } from './window';

/** The fix that ran last, as the card saw it end. */
export interface IApplied {
  label: string;
  ok: boolean;
  error?: string | null;
}

function fence(text: string, language = ''): string {
  // a fence longer than any backtick run inside, so the block cannot be closed early
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map(run => run.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}

function where(heading: string, location: ILocation): string {
  const shown = windowLines(location);
  const width = String(shown[shown.length - 1][0]).length;
  const lines = shown.map(
    ([n, text]) => `${String(n).padStart(width)} ${n === location.lineno ? '→' : ' '} ${text}`
  );
  const name = location.function && !location.function.startsWith('<') ? `, in ${location.function}` : '';
  return `**${heading}** ${location.label}${name}\n\n${fence(lines.join('\n'))}`;
}

export function cardMarkdown(d: IDiagnosis, applied: IApplied | null = null): string {
  const parts = [`### ${d.title} (jax_nbhelp ${d.code})`, d.explanation];
  if (d.location) {
    parts.push(where('Where:', d.location));
  }
  if (d.call_site) {
    parts.push(where('Reached from:', d.call_site));
  }
  parts.push(`**Error:**\n\n${fence(d.error)}`);
  if (applied) {
    const ended = applied.ok ? 'fixed' : `not fixed: ${applied.error ?? 'unknown error'}`;
    parts.push(`**Fix applied:** ${applied.label} (${ended})`);
  }
  const v = d.versions;
  if (v) {
    const known = (['python', 'jax', 'jaxlib', 'backend'] as const)
      .filter(key => v[key])
      .map(key => `${key} ${v[key]}`);
    if (known.length > 0) {
      parts.push(`**Versions:** ${known.join(', ')}`);
    }
  }
  return parts.join('\n\n') + '\n';
}
