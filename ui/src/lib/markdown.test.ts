// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown, renderMarkdown, sanitize } from './markdown';

function dom(html: string): HTMLElement {
  const d = document.createElement('div');
  d.innerHTML = html;
  return d;
}

describe('renderMarkdown', () => {
  it('renders headings, emphasis and lists', () => {
    const d = dom(renderMarkdown('# Title\n\n## Sub\n\nSome **bold** and *em*.\n\n- a\n- b\n'));
    expect(d.querySelector('h1')?.textContent).toBe('Title');
    expect(d.querySelector('h2')?.textContent).toBe('Sub');
    expect(d.querySelector('strong')?.textContent).toBe('bold');
    expect(d.querySelectorAll('li')).toHaveLength(2);
  });

  it('renders GFM tables', () => {
    const d = dom(renderMarkdown('| a | b |\n|---|--:|\n| 1 | 2 |\n| 3 | 4 |\n'));
    expect(d.querySelectorAll('table th')).toHaveLength(2);
    expect([...d.querySelectorAll('tbody td')].map((t) => t.textContent)).toEqual(['1', '2', '3', '4']);
  });

  it('highlights known languages and adds a copy button', () => {
    const d = dom(renderMarkdown('```rust\nfn main() { let x = "s"; }\n```\n'));
    const code = d.querySelector('.code-block pre code');
    expect(code?.className).toContain('language-rust');
    expect(code?.querySelector('.hljs-keyword')?.textContent).toBe('fn');
    expect(code?.textContent).toBe('fn main() { let x = "s"; }');
    const btn = d.querySelector('.code-block button.copy-code');
    expect(btn?.getAttribute('type')).toBe('button');
    expect(btn?.getAttribute('aria-label')).toBe('Copy code');
    expect(d.querySelector('.code-lang')?.textContent).toBe('rust');
  });

  it('escapes code of unknown languages', () => {
    const d = dom(renderMarkdown('```nosuchlang\n<b>x</b>\n```\n'));
    expect(d.querySelector('pre code b')).toBeNull();
    expect(d.querySelector('pre code')?.textContent).toBe('<b>x</b>');
  });

  it('shows raw HTML as text', () => {
    const d = dom(renderMarkdown('hello <b>bold</b>\n\n<div class="x">block</div>\n'));
    expect(d.querySelector('b')).toBeNull();
    expect(d.querySelector('div.x')).toBeNull();
    expect(d.textContent).toContain('<b>bold</b>');
  });
});

describe('sanitizing', () => {
  it('removes scripts, handlers, iframes, styles', () => {
    const html = sanitize(
      '<p onclick="x()" style="color:red">a</p><script>alert(1)</script><iframe src="x"></iframe><style>p{}</style><img src=x onerror="alert(1)"><svg onload="alert(1)"></svg>',
    );
    const d = dom(html);
    expect(d.querySelector('script, iframe, style, svg, img')).toBeNull();
    expect(d.querySelector('p')?.getAttribute('onclick')).toBeNull();
    expect(d.querySelector('p')?.getAttribute('style')).toBeNull();
    expect(html).not.toMatch(/onerror|onload|alert/);
  });

  it('neutralizes javascript: and data: links, keeps http(s)', () => {
    const d = dom(renderMarkdown('[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) [d](https://ok.example/x) [e](vbscript:x)'));
    const links = [...d.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([null, null, null, 'https://ok.example/x', null]);
    expect(links.every((a) => a.getAttribute('rel') === 'noopener noreferrer')).toBe(true);
  });

  it('drops remote images and keeps data: images', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const d = dom(renderMarkdown(`![remote](https://evil.example/t.png) ![local](${png}) ![svg](data:image/svg+xml;base64,PHN2Zz4=)`));
    const imgs = [...d.querySelectorAll('img')];
    expect(imgs.map((i) => i.getAttribute('src'))).toEqual([png]);
  });

  it('a streamed onerror image never survives rendering', () => {
    const inc = new IncrementalMarkdown();
    const src = 'Look: <img src=x onerror="window.__x=1"> ok\n\n<script>window.__x=2</script>\n';
    let html = '';
    for (let i = 1; i <= src.length; i++) {
      const r = inc.update(src.slice(0, i));
      html = inc.blocks.join('') + r.tail;
      expect(html).not.toMatch(/<img|<script/);
    }
    expect(dom(inc.html()).textContent).toContain('<img src=x onerror="window.__x=1">');
  });
});

describe('IncrementalMarkdown', () => {
  const DOC =
    '# Heading\n\nA paragraph with `code` and a [link](https://example.com).\n\n' +
    '- item one\n- item two\n  continued\n- item three\n\n' +
    '```python\ndef f(x):\n\n    return x  # blank line above inside the fence\n```\n\n' +
    '| a | b |\n|---|---|\n| 1 | 2 |\n\n' +
    '> quoted\n> more\n\n1. first\n2. second\n\nSetext heading\n---\n\nLast paragraph\nspanning lines.\n';

  it('gives the same HTML as a full render, whatever the chunking', () => {
    const full = renderMarkdown(DOC);
    for (const step of [1, 3, 7, 19, 64]) {
      const inc = new IncrementalMarkdown();
      for (let i = step; i < DOC.length + step; i += step) inc.update(DOC.slice(0, Math.min(i, DOC.length)));
      inc.finish();
      expect(inc.html(), `step ${step}`).toBe(full);
    }
  });

  it('commits completed blocks once and re-renders only the open one', () => {
    const inc = new IncrementalMarkdown();
    let r = inc.update('# A\n\nfirst para');
    expect(r.added).toHaveLength(1);
    expect(r.added[0]).toContain('<h1');
    expect(r.tail).toContain('first para');
    r = inc.update('# A\n\nfirst para\n\nsecond');
    expect(r.added).toHaveLength(1);
    expect(r.added[0]).toContain('first para');
    expect(r.tail).toContain('second');
    expect(r.tail).not.toContain('first para');
    expect(inc.blocks).toHaveLength(2);
  });

  it('keeps an open code fence in the tail across blank lines', () => {
    const inc = new IncrementalMarkdown();
    const r = inc.update('intro\n\n```js\nlet a = 1;\n\n\nlet b = 2;\n');
    expect(inc.blocks).toHaveLength(1);
    const tail = dom(r.tail);
    expect(tail.querySelectorAll('pre')).toHaveLength(1);
    expect(tail.querySelector('pre code')?.textContent).toContain('let b = 2;');
    // While open, the tail is not highlighted; once closed and followed by more, it is.
    expect(tail.querySelector('.hljs-keyword')).toBeNull();
    const r2 = inc.update('intro\n\n```js\nlet a = 1;\n\n\nlet b = 2;\n```\n\nafter');
    expect(r2.added).toHaveLength(1);
    expect(dom(r2.added[0]!).querySelector('.hljs-keyword')?.textContent).toBe('let');
  });

  it('starts over when the text is replaced', () => {
    const inc = new IncrementalMarkdown();
    inc.update('one\n\ntwo\n\nthree');
    inc.update('other\n\nthing');
    inc.finish();
    expect(inc.html()).toBe(renderMarkdown('other\n\nthing'));
  });
});
