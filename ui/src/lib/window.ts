// Which slice of a long message list is rendered. Pure; the list component
// moves the window as the user scrolls.
/** Messages rendered around the bottom once filled. */
export const WINDOW = 60;
/** Messages rendered at first (the rest are added a few per frame). */
export const INITIAL = 8;
/** Messages added or dropped per step (small: each step is one frame's work). */
export const STEP = 6;
/** Never more than this many in the DOM. */
export const MAX_WINDOW = 120;

export interface Win {
  start: number;
  end: number;
}

/** The window for a freshly loaded list: the last INITIAL messages (grown later by `earlier`). */
export function initialWindow(len: number): Win {
  return { start: Math.max(0, len - INITIAL), end: len };
}

/** Whether a window pinned to the end should still grow upwards. */
export function wantsFill(w: Win): boolean {
  return w.start > 0 && w.end - w.start < WINDOW;
}

/** After the list changed length from `prevLen` to `len`. A window pinned to the end stays pinned. */
export function onLengthChange(w: Win, prevLen: number, len: number): Win {
  if (w.end >= prevLen) {
    const end = len;
    let start = Math.min(w.start, end);
    if (end - start > MAX_WINDOW) start = end - WINDOW;
    return { start: Math.max(0, start), end };
  }
  const end = Math.min(w.end, len);
  return { start: Math.min(w.start, end), end };
}

export function earlier(w: Win): Win {
  const start = Math.max(0, w.start - STEP);
  const end = Math.min(w.end, start + MAX_WINDOW);
  return { start, end };
}

export function later(w: Win, len: number): Win {
  const end = Math.min(len, w.end + STEP);
  const start = Math.max(w.start, end - MAX_WINDOW);
  return { start, end };
}
