import { describe, expect, it } from 'vitest';
import { composerKey, globalKey, quickKey, type KeyLike } from './keys';

const k = (key: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('composer keys', () => {
  it('Enter sends, Shift+Enter is a new line, Esc stops only while streaming', () => {
    expect(composerKey(k('Enter'), false)).toBe('send');
    expect(composerKey(k('Enter', { shiftKey: true }), false)).toBe('newline');
    expect(composerKey(k('Escape'), true)).toBe('stop');
    expect(composerKey(k('Escape'), false)).toBeNull();
    expect(composerKey(k('a'), false)).toBeNull();
  });
  it('ignores Enter while an IME is composing', () => {
    expect(composerKey(k('Enter', { isComposing: true }), false)).toBeNull();
  });
});

describe('global keys', () => {
  it('Ctrl/Cmd shortcuts', () => {
    expect(globalKey(k('n', { ctrlKey: true }), false)).toBe('new-chat');
    expect(globalKey(k('N', { metaKey: true }), false)).toBe('new-chat');
    expect(globalKey(k(',', { ctrlKey: true }), false)).toBe('settings');
    expect(globalKey(k('k', { ctrlKey: true }), false)).toBe('search');
    expect(globalKey(k('b', { metaKey: true }), false)).toBe('toggle-sidebar');
    expect(globalKey(k('n'), false)).toBeNull();
    expect(globalKey(k('n', { ctrlKey: true, altKey: true }), false)).toBeNull();
    expect(globalKey(k('n', { ctrlKey: true, shiftKey: true }), false)).toBeNull();
  });
  it('Esc stops while streaming', () => {
    expect(globalKey(k('Escape'), true)).toBe('stop');
    expect(globalKey(k('Escape'), false)).toBeNull();
  });
});

describe('quick window keys', () => {
  it('Esc hides, Ctrl/Cmd+O opens in the main window, Ctrl/Cmd+N starts over', () => {
    expect(quickKey(k('Escape'))).toBe('hide');
    expect(quickKey(k('o', { ctrlKey: true }))).toBe('open-in-main');
    expect(quickKey(k('O', { metaKey: true }))).toBe('open-in-main');
    expect(quickKey(k('n', { ctrlKey: true }))).toBe('new');
    expect(quickKey(k('o'))).toBeNull();
    expect(quickKey(k('o', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(quickKey(k('Escape', { isComposing: true }))).toBeNull();
  });
});
