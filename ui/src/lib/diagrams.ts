// Mermaid diagrams in answers: each finished ```mermaid block is drawn with
// the Mermaid bundled with the app (loaded on first use, no network), its
// source one click away; a diagram that fails to draw keeps its source in
// view with the error above it, never a blank.
import { t } from './i18n.svelte';

type Mermaid = (typeof import('mermaid'))['default'];

/** A drawn diagram, or Mermaid's error ('' when it gave no message). */
type Drawing = { svg: string } | { error: string };

let loading: Promise<Mermaid> | null = null;
const drawings = new Map<string, Drawing>();
let counter = 0;

function load(): Promise<Mermaid> {
  loading ??= import('mermaid').then(
    (m) => {
      m.default.initialize({ startOnLoad: false, securityLevel: 'strict', suppressErrorRendering: true, theme: 'default' });
      return m.default;
    },
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** Mermaid's message on one line, without its `---^` pointer line ('' when it has none). */
function messageOf(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !/^-*\^$/.test(l));
  const one = lines.join(' ').replace(/\s+/g, ' ');
  return one.length > 240 ? `${one.slice(0, 239)}…` : one;
}

/** A drawing's error as shown (in the current language when Mermaid said nothing). */
function shownError(error: string): string {
  return error || t('cards.diagram.unreadable');
}

/** Draws `source` once (Mermaid queues renders: callers go one at a time). */
async function draw(mermaid: Mermaid, source: string): Promise<Drawing> {
  const known = drawings.get(source);
  if (known) return known;
  let drawing: Drawing;
  try {
    const { svg } = await mermaid.render(`chat-diagram-${++counter}`, source);
    drawing = { svg };
  } catch (e) {
    drawing = { error: messageOf(e) };
  }
  drawings.set(source, drawing);
  return drawing;
}

/** The figure (or error line) shown above a mermaid code block. */
function present(block: HTMLElement, drawing: Drawing): void {
  if ('error' in drawing) {
    const p = document.createElement('p');
    p.className = 'diagram-error';
    p.dataset.testid = 'diagram-error';
    p.textContent = t('cards.diagram.failed', { error: shownError(drawing.error) });
    block.before(p);
    block.dataset.diagram = 'error';
    return;
  }
  const figure = document.createElement('figure');
  figure.className = 'diagram';
  figure.dataset.testid = 'diagram';
  figure.innerHTML = drawing.svg;
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'diagram-source';
  toggle.dataset.testid = 'diagram-source';
  toggle.textContent = t('cards.diagram.showSource');
  toggle.setAttribute('aria-expanded', 'false');
  toggle.addEventListener('click', () => {
    const open = block.hidden;
    block.hidden = !open;
    toggle.textContent = open ? t('cards.diagram.hideSource') : t('cards.diagram.showSource');
    toggle.setAttribute('aria-expanded', String(open));
  });
  block.hidden = true;
  block.dataset.diagram = 'drawn';
  block.before(figure, toggle);
}

/** Draws the mermaid blocks of `root` not drawn yet. */
export async function drawDiagrams(root: HTMLElement): Promise<void> {
  const blocks = Array.from(root.querySelectorAll<HTMLElement>('code.language-mermaid'))
    .map((code) => ({ code, block: code.closest<HTMLElement>('.code-block') ?? code.parentElement! }))
    .filter(({ block }) => !block.dataset.diagram);
  if (!blocks.length) return;
  let mermaid: Mermaid;
  try {
    mermaid = await load();
  } catch (e) {
    for (const { block } of blocks) present(block, { error: t('cards.diagram.notLoaded', { error: shownError(messageOf(e)) }) });
    return;
  }
  for (const { code, block } of blocks) {
    if (block.dataset.diagram || !block.isConnected) continue;
    present(block, await draw(mermaid, code.textContent ?? ''));
  }
}

/** Whether `root` holds a mermaid block (a cheap check before loading). */
export function hasDiagrams(root: HTMLElement): boolean {
  return root.querySelector('code.language-mermaid') !== null;
}
