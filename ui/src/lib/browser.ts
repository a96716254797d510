// The browser section of the settings: sites typed one per line (or
// separated by commas) become the lists the Rust side stores.

import type { BrowserSettingsView } from './bindings';

/** Site names from text: one per line or comma-separated, `https://` and a trailing `/` dropped. */
export function sitesFromText(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, ''))
    .filter((s) => s.length > 0);
}

/** The lists as the text area shows them. */
export function sitesToText(sites: string[]): string {
  return sites.join('\n');
}

/** Sites that are not a bare site name (a path or a space in them). */
export function badSites(sites: string[]): string[] {
  return sites.filter((s) => /[/\s]/.test(s));
}

/** The settings to save: typed lists, the read-only list of browsers left out, an empty path as none. */
export function browserSettingsToSave(v: BrowserSettingsView, allowed: string, blocked: string): BrowserSettingsView {
  const { browsers: _found, ...settings } = v;
  return {
    ...settings,
    path: v.path && v.path.trim() ? v.path.trim() : null,
    allowedSites: sitesFromText(allowed),
    blockedSites: sitesFromText(blocked),
  };
}
