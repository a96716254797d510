// Lazy loader of the Markdown pipeline (kept out of the first-paint chunk).
// Until it has loaded, model output is shown as plain text (textContent only,
// never parsed as HTML) and re-rendered once the module arrives.
export type MdPipeline = typeof import('./mdpipeline');

let loaded: MdPipeline | null = null;
let pending: Promise<MdPipeline> | null = null;

/** The pipeline if it has already loaded, else null. */
export function loadedMarkdown(): MdPipeline | null {
  return loaded;
}

/** Load the pipeline (once; a failed load can be retried). */
export function loadMarkdown(): Promise<MdPipeline> {
  if (loaded) return Promise.resolve(loaded);
  pending ??= import('./mdpipeline').then(
    (m) => (loaded = m),
    (e: unknown) => {
      pending = null;
      throw e;
    },
  );
  return pending;
}

type IdleWindow = { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => number };

/**
 * Called once the shell is mounted: after the first frame, fetch the pipeline,
 * then warm it up while idle (keeps the first streamed answer smooth).
 */
export function preloadMarkdown(): void {
  let started = false;
  const go = () => {
    if (started) return;
    started = true;
    loadMarkdown().then(
      (m) => {
        const idle = (globalThis as IdleWindow).requestIdleCallback;
        // `<html data-markdown="ready">` once warm: tests that measure
        // steady-state rendering wait for it.
        const warm = () => {
          m.warmUp();
          if (typeof document !== 'undefined') document.documentElement.dataset.markdown = 'ready';
        };
        if (idle) idle(warm, { timeout: 1500 });
        else setTimeout(warm, 200);
      },
      () => {
        /* retried by the first message that needs it */
      },
    );
  };
  // Right after the first frame; the timeout covers a window that isn't
  // painting yet (hidden at start), where rAF would not fire.
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(go, 0));
  setTimeout(go, 250);
}
