// Markdown → safe HTML. All model output goes through `renderMarkdown` (or the
// incremental renderer below), which escapes raw HTML, highlights code and
// runs DOMPurify over the result.
import { Marked, type Token, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import { escapeHtml, highlight } from './highlight';
import { t } from './i18n.svelte';

function codeBlock(text: string, lang: string | undefined, doHighlight: boolean): string {
  const h = doHighlight ? highlight(text, lang) : { html: escapeHtml(text), lang: (lang ?? '').trim().split(/\s+/)[0] || null };
  const label = h.lang ? escapeHtml(h.lang) : 'text';
  const cls = h.lang ? ` class="hljs language-${escapeHtml(h.lang)}"` : ' class="hljs"';
  return (
    `<div class="code-block"><div class="code-head"><span class="code-lang">${label}</span>` +
    `<button type="button" class="copy-code" aria-label="${escapeHtml(t('cards.markdown.copyCode'))}">${escapeHtml(t('cards.markdown.copy'))}</button></div>` +
    `<pre><code${cls}>${h.html}</code></pre></div>\n`
  );
}

function makeMarked(doHighlight: boolean): Marked {
  return new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      // Raw HTML from the model is shown as text, never interpreted.
      html(token: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(token.text);
      },
      code(token: Tokens.Code): string {
        return codeBlock(token.text.replace(/\n$/, ''), token.lang, doHighlight);
      },
    },
  });
}

const full = makeMarked(true);
const plain = makeMarked(false);

// ---------------------------------------------------------------- sanitizing

let purifier: ReturnType<typeof DOMPurify> | null = null;

const SAFE_HREF = /^(https?:|mailto:|#)/i;
const SAFE_IMG = /^data:image\/(png|jpe?g|gif|webp|bmp|avif);base64,/i;

function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const p = DOMPurify(globalThis.window);
  p.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element;
    if (el.tagName === 'A') {
      const href = el.getAttribute('href');
      if (href !== null && !SAFE_HREF.test(href.trim())) el.removeAttribute('href');
      el.setAttribute('rel', 'noopener noreferrer');
      el.removeAttribute('target');
    } else if (el.tagName === 'IMG') {
      const src = el.getAttribute('src') ?? '';
      if (!SAFE_IMG.test(src.trim())) el.remove();
    }
  });
  purifier = p;
  return p;
}

const PURIFY_CONFIG = {
  FORBID_TAGS: [
    'style', 'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'form', 'input', 'textarea', 'select',
    'option', 'link', 'meta', 'base', 'svg', 'math', 'video', 'audio', 'source', 'track', 'canvas', 'template', 'dialog',
  ],
  FORBID_ATTR: ['style', 'srcset', 'formaction', 'action', 'ping', 'background', 'poster'],
  ALLOW_DATA_ATTR: false,
};

/** Remove everything that could run code or load remote content. */
export function sanitize(html: string): string {
  return getPurifier().sanitize(html, PURIFY_CONFIG) as unknown as string;
}

/** Full render of a finished message. */
export function renderMarkdown(md: string): string {
  return sanitize(full.parse(normalize(md), { async: false }) as string);
}

function normalize(md: string): string {
  return md.indexOf('\r') >= 0 ? md.replace(/\r\n?/g, '\n') : md;
}

// ---------------------------------------------------------- incremental render

/**
 * Renders a growing Markdown text block by block. Completed top-level blocks
 * (a block is complete once the lexer has started the next one) are rendered
 * once, highlighted and sanitized, and never touched again; only the open
 * last block is re-rendered (without highlighting) on each update.
 */
export class IncrementalMarkdown {
  private text = '';
  /** Offset in `text` up to which blocks are committed. */
  private committedTo = 0;
  readonly blocks: string[] = [];

  /** Replace the text (it must extend the previous one) and return what changed. */
  update(text: string): { added: string[]; tail: string } {
    const t = normalize(text);
    if (!t.startsWith(this.text.slice(0, this.committedTo))) this.reset();
    this.text = t;
    const added = this.commit();
    return { added, tail: this.renderTail(false) };
  }

  /** The text is final: render the last block fully. */
  finish(): { added: string[]; tail: string } {
    const added = this.commit();
    return { added, tail: this.renderTail(true) };
  }

  /** Everything rendered so far (committed + final tail), as one string. */
  html(finalTail = true): string {
    return this.blocks.join('') + this.renderTail(finalTail);
  }

  reset(): void {
    this.text = '';
    this.committedTo = 0;
    this.blocks.length = 0;
  }

  private commit(): string[] {
    const added: string[] = [];
    const rest = this.text.slice(this.committedTo);
    if (!rest) return added;
    const tokens = full.lexer(rest);
    let lastContent = -1;
    for (let i = tokens.length - 1; i >= 0; i--) {
      if (tokens[i]!.type !== 'space') {
        lastContent = i;
        break;
      }
    }
    if (lastContent <= 0) return added;
    // Everything before the last content token is complete.
    let consumed = 0;
    const done: Token[] = [];
    for (let i = 0; i < lastContent; i++) {
      consumed += tokens[i]!.raw.length;
      done.push(tokens[i]!);
    }
    // Safety: the raw texts must add up to the source, or we don't commit.
    if (rest.slice(0, consumed) !== done.map((d) => d.raw).join('')) return added;
    const chunk = rest.slice(0, consumed);
    if (chunk.trim()) {
      const html = sanitize(full.parse(chunk, { async: false }) as string);
      this.blocks.push(html);
      added.push(html);
    }
    this.committedTo += consumed;
    return added;
  }

  private renderTail(final: boolean): string {
    const rest = this.text.slice(this.committedTo);
    if (!rest.trim()) return '';
    const m = final ? full : plain;
    return sanitize(m.parse(rest, { async: false }) as string);
  }
}

const WARM_SAMPLE =
  '# Title\n\nSome *text* with `code`, a [link](https://example.com) and **bold**.\n\n' +
  '- one\n- two\n\n1. first\n2. second\n\n> quote\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n' +
  '```rust\nfn main() { println!("hi"); }\n```\n\n```python\ndef f(x):\n    return x * 2\n```\n\n' +
  '```js\nconst x = { a: 1 };\n```\n\n```ts\nlet y: number = 2;\n```\n\n```bash\necho hi | grep h\n```\n\n```json\n{"a": [1, 2]}\n```\n';

/**
 * Run every rendering path once while the app is idle, so the first streamed
 * answer doesn't pay for regex compilation and JIT warm-up in one long task.
 */
export function warmUp(): void {
  const inc = new IncrementalMarkdown();
  for (let i = 40; i <= WARM_SAMPLE.length; i += 40) inc.update(WARM_SAMPLE.slice(0, i));
  inc.finish();
  renderMarkdown(WARM_SAMPLE);
}
