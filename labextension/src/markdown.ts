/**
 * "Copy as Markdown": a card as text for an issue or a chat. The kernel writes it (the
 * card view's `markdown`: the title, the code, the cause, the places with their source
 * lines, the error; then its `markdown_versions`); the card puts the line of the fix that
 * ran last between them.
 */

import { ICardView } from './bundle';

export function cardMarkdown(view: ICardView, applied: string | null = null): string {
  const parts = [view.markdown, applied, view.markdown_versions].filter(
    (part): part is string => !!part
  );
  return parts.join('\n\n') + '\n';
}
