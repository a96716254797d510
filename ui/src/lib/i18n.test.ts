// The message catalogs: every language has every key English has (with
// each plural form its grammar needs), the same placeholders and markup,
// nothing empty; every key is used somewhere; `t` follows the language.
import { describe, expect, it } from 'vitest';
import { catalogs } from '../locales';
import { formatDate, formatNumber, LANGUAGES, language, languageOf, rich, setLanguage, t } from './i18n.svelte';
import { formatSize, formatWhen } from './format';

type Tree = { [k: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;
const ALLOWED_TAGS = new Set(['code', 'kbd', 'strong', 'em']);

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

const flat = Object.fromEntries(LANGUAGES.map((l) => [l, flatten(catalogs[l] as unknown as Tree)]));
const base = (key: string) => key.replace(PLURAL, '');
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*(?:,[^}]*)?\}\}/g)].map((m) => m[1]).sort();
const tags = (text: string) => [...text.matchAll(/<\/?([a-zA-Z]+)[^>]*>/g)].map((m) => m[0].replace(/\s.*>/, '>')).sort();

/** Each key's base (plural suffix removed) with its texts. */
function bases(l: (typeof LANGUAGES)[number]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of flat[l]) out.set(base(k), [...(out.get(base(k)) ?? []), v]);
  return out;
}

describe('the catalogs', () => {
  const english = bases('en');

  it('every language has every key English has, and no other', () => {
    for (const l of LANGUAGES) {
      const keys = [...bases(l).keys()].sort();
      expect({ l, missing: [...english.keys()].filter((k) => !keys.includes(k)) }).toEqual({ l, missing: [] });
      expect({ l, extra: keys.filter((k) => !english.has(k)) }).toEqual({ l, extra: [] });
    }
  });

  it('a plural text has every form its language needs', () => {
    for (const l of LANGUAGES) {
      const forms = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
      const plurals = new Set([...flat.en.keys()].filter((k) => PLURAL.test(k)).map(base));
      for (const p of plurals) {
        const missing = forms.filter((f) => !flat[l].has(`${p}_${f}`));
        expect({ l, p, missing }).toEqual({ l, p, missing: [] });
      }
    }
  });

  it('translations keep the placeholders and markup, and none is empty', () => {
    for (const l of LANGUAGES) {
      for (const [k, v] of flat[l]) {
        const en = flat.en.get(k) ?? flat.en.get(`${base(k)}_other`) ?? '';
        expect({ l, k, empty: v.trim() === '' }).toEqual({ l, k, empty: false });
        // A plural's `one` form may say "1" or "one" instead of {{count}}.
        const want = placeholders(en).filter((p) => !(p === 'count' && PLURAL.test(k)));
        const have = placeholders(v).filter((p) => !(p === 'count' && PLURAL.test(k)));
        expect({ l, k, placeholders: have }).toEqual({ l, k, placeholders: want });
        expect({ l, k, tags: tags(v) }).toEqual({ l, k, tags: tags(en) });
        for (const tag of tags(v)) expect(ALLOWED_TAGS.has(tag.replace(/[</>]/g, ''))).toBe(true);
      }
    }
  });

  it('every key is used by the UI (or, for shell.json, by the desktop shell)', () => {
    const sources = (files: Record<string, string>) =>
      Object.entries(files)
        .filter(([path]) => !path.includes('.test.'))
        .map(([, text]) => text)
        .join('\n');
    const ui = sources(import.meta.glob(['../**/*.svelte', '../**/*.ts', '!../locales/**'], { query: '?raw', import: 'default', eager: true }));
    const shell = sources(import.meta.glob('../../../src-tauri/src/**/*.rs', { query: '?raw', import: 'default', eager: true }));
    const quoted = (text: string, key: string) => [`'${key}'`, `"${key}"`, `\`${key}\``].some((q) => text.includes(q));
    const unused = [...english.keys()].filter((k) =>
      k.startsWith('shell.') ? !quoted(shell, k.slice('shell.'.length)) : !quoted(ui, k),
    );
    expect(unused).toEqual([]);
  });
});

describe('t', () => {
  it('follows the language, fills values and picks the plural', () => {
    setLanguage('de');
    expect(language()).toBe('de');
    expect(t('common.cancel')).toBe('Abbrechen');
    expect(t('format.minutesAgo', { n: 5 })).toBe('vor 5 Min.');
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatSize(1536)).toBe('1,5 KB');
    setLanguage('fr');
    expect(formatSize(1536)).toBe('1,5 Ko');
    expect(formatDate(Date.UTC(2026, 11, 7, 12), { dateStyle: 'long', timeZone: 'UTC' })).toBe('7 décembre 2026');
    setLanguage('en');
    expect(t('common.cancel')).toBe('Cancel');
    expect(formatWhen(Date.now() - 5 * 60_000)).toBe('5 min ago');
    // A count is written the language's way too.
    expect(t('projects.chats', { count: 1234 })).toBe('1,234 chats');
    setLanguage('de');
    expect(t('projects.chats', { count: 1234 })).toBe('1.234 Chats');
    setLanguage('en');
  });

  it('rich text escapes its values but keeps the catalog markup', () => {
    expect(rich('desktop.quickHelp')).toContain('<kbd>Ctrl</kbd>');
    expect(rich('desktop.languageSystem', { name: '<b>x</b>' })).toContain('&lt;b&gt;x&lt;/b&gt;');
  });

  it('reads a locale name for the language', () => {
    expect([languageOf('de-AT'), languageOf('fr_CH.UTF-8'), languageOf('es'), languageOf('pt-BR'), languageOf(null)]).toEqual([
      'de',
      'fr',
      'es',
      null,
      null,
    ]);
  });
});
