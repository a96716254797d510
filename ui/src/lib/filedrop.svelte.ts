// Files dragged onto a window: the drop zone lights up, and the files are
// attached. In the app, Rust receives the dropped paths (and attaches them
// to the window's pane); here we only follow the drag. In a browser (the
// mock build) the DOM drop carries the files' bytes, attached from here.
import { isTauri } from '@tauri-apps/api/core';
import { store } from './store.svelte';
import { fileToBase64, pastedName } from './base64';

/** Attaches files given as bytes (pasted, or dropped in a browser). */
export async function attachFiles(files: File[]): Promise<void> {
  for (const f of files) await store.attachBytes(pastedName(f), await fileToBase64(f));
}

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}

/** One window's drop zone: `dragging` while files are over it. */
export class FileDrop {
  dragging = $state(false);
  #depth = 0;
  #dropped: () => void;

  /** `dropped` runs when files land (before they are read). */
  constructor(dropped: () => void = () => {}) {
    this.#dropped = dropped;
  }

  /** Follows the app's native drags; resolves to the function that stops. */
  async listenNative(): Promise<() => void> {
    if (!isTauri()) return () => {};
    const { getCurrentWebview } = await import('@tauri-apps/api/webview');
    return getCurrentWebview().onDragDropEvent((e) => {
      const t = e.payload.type;
      this.dragging = t === 'enter' || t === 'over';
      if (t === 'drop') this.#dropped();
    });
  }

  ondragenter = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    this.#depth++;
    this.dragging = true;
  };

  ondragover = (e: DragEvent) => {
    if (hasFiles(e)) e.preventDefault();
  };

  ondragleave = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    this.#depth = Math.max(0, this.#depth - 1);
    if (this.#depth === 0) this.dragging = false;
  };

  ondrop = async (e: DragEvent) => {
    e.preventDefault();
    this.#depth = 0;
    this.dragging = false;
    if (isTauri()) return; // Rust already has the paths
    this.#dropped();
    await attachFiles(Array.from(e.dataTransfer?.files ?? []));
  };
}
