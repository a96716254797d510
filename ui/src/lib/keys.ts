// Keyboard handling, as pure functions over the bits of a KeyboardEvent.
export interface KeyLike {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  isComposing?: boolean;
}

export type ComposerAction = 'send' | 'stop' | 'newline' | null;

/** Enter sends, Shift+Enter is a new line, Esc stops a running answer. */
export function composerKey(e: KeyLike, streaming: boolean): ComposerAction {
  if (e.isComposing) return null; // IME in progress
  if (e.key === 'Escape') return streaming ? 'stop' : null;
  if (e.key === 'Enter') {
    if (e.shiftKey) return 'newline';
    if (e.altKey) return null;
    return 'send';
  }
  return null;
}

export type GlobalAction = 'new-chat' | 'settings' | 'stop' | 'search' | 'toggle-sidebar' | null;

/** Ctrl/Cmd+N new chat, Ctrl/Cmd+, settings, Ctrl/Cmd+K search, Ctrl/Cmd+B sidebar, Esc stops. */
export function globalKey(e: KeyLike, streaming: boolean): GlobalAction {
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  if (mod && !e.shiftKey) {
    switch (e.key.toLowerCase()) {
      case 'n':
        return 'new-chat';
      case ',':
        return 'settings';
      case 'k':
        return 'search';
      case 'b':
        return 'toggle-sidebar';
    }
  }
  if (e.key === 'Escape' && streaming) return 'stop';
  return null;
}

export type QuickAction = 'hide' | 'open-in-main' | 'new' | null;

/** The quick window: Esc hides it, Ctrl/Cmd+O moves the exchange into the main window, Ctrl/Cmd+N starts over. */
export function quickKey(e: KeyLike): QuickAction {
  if (e.isComposing) return null;
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
  if (e.key === 'Escape' && !mod) return 'hide';
  if (!mod) return null;
  switch (e.key.toLowerCase()) {
    case 'o':
      return 'open-in-main';
    case 'n':
      return 'new';
  }
  return null;
}
