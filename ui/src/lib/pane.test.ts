import { describe, expect, it } from 'vitest';
import { paneOf } from './pane';

describe('pane', () => {
  it('is the quick window only when marked so', () => {
    expect(paneOf('quick', '')).toBe('quick');
    expect(paneOf(undefined, '?pane=quick')).toBe('quick');
    expect(paneOf(undefined, '')).toBe('main');
    expect(paneOf('other', '?pane=main')).toBe('main');
    expect(paneOf('talk', '')).toBe('talk');
    expect(paneOf(undefined, '?pane=talk')).toBe('talk');
  });
});
