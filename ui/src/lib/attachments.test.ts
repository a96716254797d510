import { describe, expect, it } from 'vitest';
import type { AttachmentView } from './bindings';
import { anyConverting, chipFor, chips, sendableIds, sentNames } from './attachments';

const conv = (id: string, name = `${id}.pdf`): AttachmentView => ({ id, name, size: 2048, state: { kind: 'converting' } });

describe('attachment chips', () => {
  it('moves from converting to ready or skipped', () => {
    let list: AttachmentView[] = [conv('a'), conv('b', 'tool.exe'), conv('c', 'notes.md')];
    expect(chips(list).map((c) => c.state)).toEqual(['converting', 'converting', 'converting']);
    expect(anyConverting(list)).toBe(true);
    expect(sendableIds(list)).toEqual([]);
    list = [
      { ...list[0]!, size: 3 * 1024 * 1024, state: { kind: 'ready', format: 'PDF', chars: 100, pages: 12 } },
      { ...list[1]!, state: { kind: 'skipped', reason: 'binary file' } },
      list[2]!,
    ];
    const [a, b, c] = chips(list);
    expect(a).toMatchObject({ state: 'ready', detail: 'PDF · 3.0 MB · 12 pages' });
    expect(b).toMatchObject({ state: 'skipped', detail: 'binary file' });
    expect(b!.title).toContain('binary file');
    expect(c!.state).toBe('converting');
    expect(anyConverting(list)).toBe(true);
    expect(sendableIds(list)).toEqual(['a', 'b']);
    expect(sentNames(list)).toEqual(['a.pdf', 'tool.exe']);
  });

  it('omits pages where the format has none; singular page', () => {
    expect(chipFor({ id: 'x', name: 'a.md', size: 10, state: { kind: 'ready', format: 'Markdown', chars: 5, pages: null } }).detail).toBe('Markdown · 10 B');
    expect(chipFor({ id: 'x', name: 'a.pdf', size: 10, state: { kind: 'ready', format: 'PDF', chars: 5, pages: 1 } }).detail).toBe('PDF · 10 B · 1 page');
  });

  it('removal is just a shorter list', () => {
    const list = [conv('a'), conv('b')].filter((x) => x.id !== 'a');
    expect(chips(list).map((c) => c.id)).toEqual(['b']);
  });
});
