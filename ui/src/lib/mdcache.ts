// Finished messages' rendered HTML, so scrolling a long chat back and forth
// renders each message once.
import { renderMarkdown } from './markdown';

const MAX = 4000;
const cache = new Map<string, { text: string; html: string }>();

export function cachedHtml(key: string, text: string): string {
  const hit = cache.get(key);
  if (hit && hit.text === text) return hit.html;
  const html = renderMarkdown(text);
  remember(key, text, html);
  return html;
}

export function remember(key: string, text: string, html: string): void {
  cache.delete(key);
  cache.set(key, { text, html });
  if (cache.size > MAX) {
    const first = cache.keys().next().value;
    if (first !== undefined) cache.delete(first);
  }
}
