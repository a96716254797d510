// @vitest-environment jsdom
// Markdown.svelte before the lazily loaded pipeline has arrived: model output
// is shown as plain text (never as HTML), then rendered once it resolves.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';

const gate = vi.hoisted(() => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
});

// Hold the pipeline chunk back until the test opens the gate.
vi.mock('../lib/mdpipeline', async (importOriginal) => {
  await gate.opened;
  return importOriginal();
});

import Markdown from './Markdown.svelte';
import { loadMarkdown, loadedMarkdown } from '../lib/mdload';

const EVIL =
  '# Title\n\n<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>' +
  '<b onclick="x()">bold?</b> **strong** [l](javascript:alert(1))\n';

let mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = '';
});

function render(props: { text: string; live?: boolean; cacheKey: string }) {
  const target = document.createElement('div');
  document.body.append(target);
  mounted.push(mount(Markdown, { target, props }));
  flushSync();
  return target.querySelector<HTMLDivElement>('.md')!;
}

describe('Markdown before the pipeline has loaded', () => {
  it('shows escaped plain text, injects no HTML, then renders sanitized Markdown', async () => {
    expect(loadedMarkdown()).toBeNull();
    const finished = render({ text: EVIL, cacheKey: 'k:0' });
    const live = render({ text: EVIL, live: true, cacheKey: 'k:1' });

    for (const el of [finished, live]) {
      expect(el.dataset.mdState).toBe('plain');
      expect(el.classList.contains('plain')).toBe(true);
      // The whole text is one text node: nothing was parsed as markup.
      expect(el.childNodes).toHaveLength(1);
      expect(el.firstChild?.nodeType).toBe(Node.TEXT_NODE);
      expect(el.textContent).toBe(EVIL);
      expect(el.querySelector('*')).toBeNull();
    }
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();

    // The chunk arrives: both re-render through the sanitizing pipeline.
    gate.open();
    await loadMarkdown();
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    for (const el of [finished, live]) {
      expect(el.dataset.mdState).toBe('rendered');
      expect(el.classList.contains('plain')).toBe(false);
      expect(el.textContent).toContain('Title');
      expect(el.querySelector('strong')?.textContent).toBe('strong');
      expect(el.querySelector('img, script, [onerror], [onclick], b')).toBeNull();
      expect(el.querySelector('a')?.hasAttribute('href')).toBe(false);
    }
    expect(finished.querySelector('h1')?.textContent).toBe('Title');
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('renders at once when the pipeline is already loaded', () => {
    expect(loadedMarkdown()).not.toBeNull();
    const el = render({ text: 'some *em*', cacheKey: 'k:2' });
    expect(el.dataset.mdState).toBe('rendered');
    expect(el.querySelector('em')?.textContent).toBe('em');
  });
});
