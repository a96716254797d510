// What a finished tool call did to a workspace file, read from its result
// (pretty JSON text): a workbook edit with a preview of the changed range
// (SpreadsheetTool's edits), and a save that replaced a file, with the
// backup of the version before (SpreadsheetTool save/save_as, FileTool
// write_text_file). Pure functions; no DOM.

/** Largest preview shown (the tool sends up to 8 × 8). */
export const PREVIEW_MAX = 8;

/** One row of a preview table: its row number (when known) and cell texts. */
export interface PreviewRow {
  label: string | null;
  cells: string[];
}

/** A workbook edit: where, what, whether saved, and the changed range's top-left corner. */
export interface SheetChange {
  path: string | null;
  sheet: string | null;
  /** What changed: a range (`G1:G3`) or words (`added sheet Summary`). */
  changed: string;
  /** `false`: the edit is in memory until the workbook is saved. */
  saved: boolean | null;
  /** Column letters across (`null`: `changed` names no range, so no labels). */
  columns: string[] | null;
  /** The preview's rows (empty when the result has none). */
  rows: PreviewRow[];
}

/** A save that replaced a file, keeping the version before as `backup`. */
export interface Replaced {
  path: string;
  backup: string;
}

/** A browser step: the page it left the tab on, and what it did there. */
export interface PageStep {
  url: string;
  title: string | null;
  /** What an action did (`clicked "Sign in"`), for actions. */
  done: string | null;
}

export interface ToolEffect {
  change: SheetChange | null;
  replaced: Replaced | null;
  /** The workbook a save wrote (`{path, format, bytes}`), replaced or new. */
  saved: string | null;
  /** The page a browser step is on (WebTool results carry its `url`). */
  page: PageStep | null;
}

const NONE: ToolEffect = { change: null, replaced: null, saved: null, page: null };

/** The effect of a tool call on a file, from its result; nothing for failures or other results. */
export function toolEffect(result: string | null, isError: boolean): ToolEffect {
  if (isError || result === null) return NONE;
  let v: unknown;
  try {
    v = JSON.parse(result);
  } catch {
    return NONE;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return NONE;
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' && (o[k] as string).trim() ? (o[k] as string) : null);
  const path = str('path');
  const changed = str('changed');
  let change: SheetChange | null = null;
  if (changed !== null) {
    const preview = Array.isArray(o.preview) ? (o.preview as unknown[]) : [];
    const { columns, rows } = labelledPreview(changed, preview);
    change = { path, sheet: str('sheet'), changed, saved: typeof o.saved === 'boolean' ? o.saved : null, columns, rows };
  }
  const backup = str('backup');
  const replaced = path !== null && backup !== null ? { path, backup } : null;
  const saved = path !== null && str('format') !== null && typeof o.bytes === 'number' ? path : null;
  const url = str('url');
  const page = url !== null && /^(https?|about|file):/i.test(url) ? { url, title: str('title'), done: str('done') } : null;
  return { change, replaced, saved, page };
}

/** A finished or running tool call, as far as its effect goes. */
type CallLike = { kind: string; result?: string | null; isError?: boolean; running?: boolean };

const effects = new WeakMap<object, ToolEffect>();

/** `toolEffect` of a tool part, parsed once per part object (parts are replaced, never changed). */
export function effectOf(part: CallLike): ToolEffect {
  if (part.kind !== 'tool' || part.running || part.result == null) return NONE;
  let e = effects.get(part);
  if (!e) {
    e = toolEffect(part.result, part.isError ?? false);
    effects.set(part, e);
  }
  return e;
}

/**
 * For each part, whether its workbook edit was saved by a later call of the
 * same message (a save of the same file after it): the edit's "not saved
 * yet" is then out of date.
 */
export function savedLater(parts: readonly CallLike[]): boolean[] {
  const out: boolean[] = new Array<boolean>(parts.length).fill(false);
  const savedSince = new Set<string>();
  for (let i = parts.length - 1; i >= 0; i--) {
    const e = effectOf(parts[i]!);
    if (e.change?.path && savedSince.has(e.change.path)) out[i] = true;
    if (e.saved) savedSince.add(e.saved);
  }
  return out;
}

/** `A`…`Z`, `AA`… for column 1, 2, …; '' below 1. */
export function columnLetters(n: number): string {
  let s = '';
  for (let c = Math.floor(n); c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}

/**
 * The top-left cell of a range as written in a result (`G1:G3`, `B2`,
 * `Sales!$A$1:B4`, `'My sheet'!C3`); `null` when it names no cell.
 */
export function topLeft(range: string): { col: number; row: number } | null {
  const bang = range.lastIndexOf('!');
  const first = range.slice(bang + 1).split(':')[0]!.trim();
  const m = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(first);
  if (!m) return null;
  let col = 0;
  for (const ch of m[1]!.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  const row = Number(m[2]);
  return row >= 1 ? { col, row } : null;
}

/** A cell value as the table shows it. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return JSON.stringify(v);
}

/**
 * The preview's rows (at most 8 × 8, ragged rows padded) with the
 * spreadsheet's labels from `changed`'s top-left cell: column letters
 * across, row numbers down. Without a cell in `changed`, no labels.
 */
export function labelledPreview(changed: string, preview: readonly unknown[]): { columns: string[] | null; rows: PreviewRow[] } {
  const grid = preview.slice(0, PREVIEW_MAX).map((r) => (Array.isArray(r) ? r.slice(0, PREVIEW_MAX) : [r]));
  const width = grid.reduce((w, r) => Math.max(w, r.length), 0);
  if (width === 0) return { columns: null, rows: [] };
  const at = topLeft(changed);
  const rows = grid.map((r, i) => ({
    label: at ? String(at.row + i) : null,
    cells: Array.from({ length: width }, (_, c) => cellText(r[c])),
  }));
  const columns = at ? Array.from({ length: width }, (_, c) => columnLetters(at.col + c)) : null;
  return { columns, rows };
}

/** What a finished `remember` call kept (its id, for undo), if it is one. */
export function rememberedOf(part: CallLike & { name?: string }): { id: string; text: string } | null {
  const named = part.name === 'remember' || part.name?.endsWith('.remember');
  if (part.kind !== 'tool' || !named || part.running || part.isError || part.result == null) return null;
  try {
    const v: unknown = JSON.parse(part.result);
    if (v && typeof v === 'object' && 'id' in v && 'text' in v && typeof v.id === 'string' && typeof v.text === 'string') {
      return { id: v.id, text: v.text };
    }
  } catch {
    // Not JSON: not a kept memory.
  }
  return null;
}
