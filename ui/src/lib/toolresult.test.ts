import { describe, expect, it } from 'vitest';
import type { ToolPart } from './chat';
import { cellText, columnLetters, effectOf, labelledPreview, rememberedOf, savedLater, toolEffect, topLeft } from './toolresult';

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

describe('toolEffect', () => {
  it('reads a workbook edit with its preview, labelled from the top-left cell', () => {
    const e = toolEffect(pretty({ path: '/budget.xlsx', sheet: 'Sales', changed: 'G1:G3', preview: [['Shipping'], [4.5], ['=G2*2']], saved: false }), false);
    expect(e.replaced).toBeNull();
    expect(e.saved).toBeNull();
    expect(e.change).toEqual({
      path: '/budget.xlsx',
      sheet: 'Sales',
      changed: 'G1:G3',
      saved: false,
      columns: ['G'],
      rows: [
        { label: '1', cells: ['Shipping'] },
        { label: '2', cells: ['4.5'] },
        { label: '3', cells: ['=G2*2'] },
      ],
    });
  });

  it('reads a save that replaced a file (sheet save, FileTool write) and one that made a new file', () => {
    expect(toolEffect(pretty({ path: '/budget.xlsx', format: 'xlsx', bytes: 11520, backup: '/budget.xlsx.001.bak' }), false)).toEqual({
      change: null,
      replaced: { path: '/budget.xlsx', backup: '/budget.xlsx.001.bak' },
      saved: '/budget.xlsx',
      page: null,
    });
    expect(toolEffect('{"path":"/notes.md","bytes":12,"backup":"/notes.md.003.bak"}', false)).toEqual({
      change: null,
      replaced: { path: '/notes.md', backup: '/notes.md.003.bak' },
      saved: null,
      page: null,
    });
    expect(toolEffect(pretty({ path: '/new.xlsx', format: 'xlsx', bytes: 9000 }), false)).toEqual({ change: null, replaced: null, saved: '/new.xlsx', page: null });
  });

  it('an edit without a preview (structural edits) keeps what changed, with no table', () => {
    const e = toolEffect(pretty({ path: '/b.xlsx', sheet: 'Sales', changed: 'added sheet `Summary`', saved: false }), false);
    expect(e.change).toMatchObject({ changed: 'added sheet `Summary`', saved: false, columns: null, rows: [] });
  });

  it('reads the page a browser step left the tab on, and what an action did', () => {
    expect(toolEffect(pretty({ url: 'https://shop.example.com/cart', title: 'Cart', loaded: true }), false).page).toEqual({
      url: 'https://shop.example.com/cart',
      title: 'Cart',
      done: null,
    });
    const clicked = toolEffect(pretty({ target: 'e2', done: 'clicked "Sign in"', url: 'http://127.0.0.1:8080/done', navigated: true }), false);
    expect(clicked.page).toEqual({ url: 'http://127.0.0.1:8080/done', title: null, done: 'clicked "Sign in"' });
    expect(toolEffect(pretty({ url: 'javascript:alert(1)', title: 'x' }), false).page).toBeNull();
    expect(toolEffect(pretty({ url: 'https://a.example/' }), true).page).toBeNull();
  });

  it('nothing for failures, non-JSON, arrays, strings and other results', () => {
    const edit = pretty({ path: '/b.xlsx', changed: 'A1', preview: [[1]], backup: '/b.xlsx.001.bak' });
    expect(toolEffect(edit, true)).toEqual({ change: null, replaced: null, saved: null, page: null });
    for (const r of [null, 'no such file', '[]', '"text"', '42', 'null', '{"hits":3}', '{"path":"/a","backup":""}', '{"path":3,"backup":"/a.001.bak"}', '{"changed":""}']) {
      expect(toolEffect(r, false), String(r)).toEqual({ change: null, replaced: null, saved: null, page: null });
    }
  });
});

describe('savedLater', () => {
  let n = 0;
  const tool = (result: unknown, extra: Partial<ToolPart> = {}): ToolPart => ({
    kind: 'tool', id: `c${n++}`, name: 'x', arguments: '{}', result: JSON.stringify(result), isError: false, durationMs: 1, running: false, ...extra,
  });
  const edit = (path: string) => tool({ path, sheet: 'S', changed: 'A1', preview: [[1]], saved: false });
  const save = (path: string, extra: Partial<ToolPart> = {}) => tool({ path, format: 'xlsx', bytes: 10 }, extra);

  it('an edit saved by a later save of the same file in the message', () => {
    const text = { kind: 'text', text: 'hi' };
    expect(savedLater([edit('/a.xlsx'), edit('/b.xlsx'), text, save('/a.xlsx'), edit('/a.xlsx')])).toEqual([true, false, false, false, false]);
    expect(savedLater([save('/a.xlsx'), edit('/a.xlsx')])).toEqual([false, false]);
  });

  it('a failed or running save does not count', () => {
    expect(savedLater([edit('/a.xlsx'), save('/a.xlsx', { isError: true })])).toEqual([false, false]);
    expect(savedLater([edit('/a.xlsx'), save('/a.xlsx', { running: true })])).toEqual([false, false]);
  });

  it('parses each part once', () => {
    const p = edit('/a.xlsx');
    expect(effectOf(p)).toBe(effectOf(p));
    expect(effectOf({ kind: 'text' })).toEqual({ change: null, replaced: null, saved: null, page: null });
  });
});

describe('preview labels', () => {
  it('column letters', () => {
    expect([1, 2, 26, 27, 52, 53, 702, 703, 16384].map(columnLetters)).toEqual(['A', 'B', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA', 'XFD']);
    expect(columnLetters(0)).toBe('');
  });

  it('top-left cell of a range, with or without a sheet and $ signs', () => {
    expect(topLeft('G1:G3')).toEqual({ col: 7, row: 1 });
    expect(topLeft('b12')).toEqual({ col: 2, row: 12 });
    expect(topLeft('Sales!$AA$10:AB12')).toEqual({ col: 27, row: 10 });
    expect(topLeft("'Q1 figures'!C3")).toEqual({ col: 3, row: 3 });
    for (const s of ['added sheet `X`', 'table `T` over A1:C5', 'A0', '', 'A:C', '3:5', 'rows 2–4']) expect(topLeft(s), s).toBeNull();
  });

  it('pads ragged rows, caps at 8 × 8 and labels from the corner', () => {
    const big = Array.from({ length: 12 }, (_, r) => Array.from({ length: 11 }, (_, c) => r * 100 + c));
    const p = labelledPreview('X5:AH16', big);
    expect(p.columns).toEqual(['X', 'Y', 'Z', 'AA', 'AB', 'AC', 'AD', 'AE']);
    expect(p.rows.map((r) => r.label)).toEqual(['5', '6', '7', '8', '9', '10', '11', '12']);
    expect(p.rows[7]!.cells).toEqual(['700', '701', '702', '703', '704', '705', '706', '707']);
    expect(labelledPreview('B2:C3', [['a'], ['b', 'c']]).rows).toEqual([
      { label: '2', cells: ['a', ''] },
      { label: '3', cells: ['b', 'c'] },
    ]);
    expect(labelledPreview('B2', [])).toEqual({ columns: null, rows: [] });
    expect(labelledPreview('sorted', [[1, 2]])).toEqual({ columns: null, rows: [{ label: null, cells: ['1', '2'] }] });
  });

  it('cell texts as a spreadsheet shows them', () => {
    expect([null, undefined, 'x', 4.5, 0, true, false, Number.NaN, { a: 1 }].map(cellText)).toEqual(['', '', 'x', '4.5', '0', 'TRUE', 'FALSE', '', '{"a":1}']);
  });
});

describe('remembered', () => {
  const part = (over: Partial<ToolPart>): ToolPart => ({
    kind: 'tool', id: 'c1', name: 'remember', arguments: '{}', result: '{"id":"m0badc0de","text":"Prefers metric units"}',
    isError: false, durationMs: 3, running: false, ...over,
  });

  it('a kept fact gives its id and text for the undo line; anything else gives none', () => {
    expect(rememberedOf(part({}))).toEqual({ id: 'm0badc0de', text: 'Prefers metric units' });
    expect(rememberedOf(part({ isError: true }))).toBeNull();
    expect(rememberedOf(part({ running: true, result: null }))).toBeNull();
    expect(rememberedOf(part({ name: 'MemoryTool.remember' }))?.id).toBe('m0badc0de');
    expect(rememberedOf(part({ name: 'read_file' }))).toBeNull();
    expect(rememberedOf(part({ result: 'held back: needs the user\u2019s confirmation' }))).toBeNull();
  });
});
