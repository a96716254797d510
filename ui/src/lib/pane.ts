// Which window this page is: the main window, or the quick window the
// global shortcut opens (the Rust side marks it before the page loads;
// the mock build reads `?pane=quick`).
import type { Pane } from './bindings';

/** The pane named by the page's marker or address (`main` unless it says `quick` or `talk`). */
export function paneOf(marker: unknown, search: string): Pane {
  const named = marker ?? new URLSearchParams(search).get('pane');
  return named === 'quick' || named === 'talk' ? named : 'main';
}

/** This page's pane (`main` outside a page, as in unit tests). */
export const pane: Pane =
  typeof window === 'undefined'
    ? 'main'
    : paneOf((window as { __BATON_PANE__?: unknown }).__BATON_PANE__, window.location.search);
