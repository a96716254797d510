// The UI's words in the user's language, through i18next. `t('area.key')`
// reads the current language (a Svelte state), so text re-renders when the
// language changes. The language is the one chosen in Settings → Desktop,
// else the system's where Baton speaks it, else English; the Rust side
// resolves it (the tray and notifications use the same catalogs).
import i18next, { type ParseKeys } from 'i18next';
import { catalogs, type Catalog } from '../locales';
import type { Language } from './bindings';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Catalog };
    returnNull: false;
  }
}

/** Every language the UI is written in, English first. */
export const LANGUAGES = Object.keys(catalogs) as readonly Language[];

/** Each language's own name for itself (shown as is in every language). */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
};

let current = $state<Language>('en');

void i18next.init({
  lng: 'en',
  fallbackLng: 'en',
  resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: catalogs[l] }])),
  // Svelte escapes what it inserts; catalogs' rich strings escape their values themselves.
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});

/** The language the UI shows now. */
export function language(): Language {
  return current;
}

/** Shows the UI in `lang` from now on (every `t` re-renders). */
export function setLanguage(lang: Language): void {
  if (lang === current) return;
  void i18next.changeLanguage(lang);
  current = lang;
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}

/** The language of a locale name (`de-AT`, `fr_CH`), if the UI has it. */
export function languageOf(locale: string | null | undefined): Language | null {
  const primary = (locale ?? '').split(/[-_.@]/)[0]?.toLowerCase();
  return LANGUAGES.find((l) => l === primary) ?? null;
}

/** The first of the browser's preferred languages the UI has, else English. */
export function browserLanguage(): Language {
  const wanted = typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);
  for (const w of wanted) {
    const l = languageOf(w);
    if (l) return l;
  }
  return 'en';
}

/** A key of the catalogs (`area.key`); TypeScript refuses one that is not there. */
export type MessageKey = ParseKeys;

/** The text of `key` in the current language, `{{values}}` filled in (and `count` choosing the plural). */
export function t(key: MessageKey, values?: Record<string, unknown>): string {
  void current; // a dependency, so text re-renders on a change of language
  return i18next.t(key as never, values as never) as unknown as string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (v: unknown): string => String(v).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/**
 * Like `t`, for a catalog text with simple markup (`<code>`, `<kbd>`,
 * `<strong>`, `<em>`) to show with `{@html}`: the values are escaped. The
 * catalogs are Baton's own; `i18n.test.ts` allows only those tags.
 */
export function rich(key: MessageKey, values?: Record<string, unknown>): string {
  return t(key, Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, k === 'count' && typeof v === 'number' ? v : escape(v)])));
}

/** A number in the current language's way (`1,234.5`, `1.234,5`). */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return n.toLocaleString(current, options);
}

/** A date and time in the current language's way. */
export function formatDate(when: Date | number, options?: Intl.DateTimeFormatOptions): string {
  return new Date(when).toLocaleString(current, options);
}
