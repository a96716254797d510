// The embedded model's load progress (`model-load` events), as the chat and
// the settings panel show it. Pure helpers; the store keeps the state.
import type { ModelLoad } from './bindings';
import { formatNumber, t } from './i18n.svelte';

/** How long "loaded" stays after 100 % before the state clears (ms). */
export const LOADED_LINGER_MS = 1500;

/** An event as the UI keeps it: percent finite and within 0–100. */
export function normalizeLoad(e: ModelLoad): ModelLoad {
  const p = Number.isFinite(e.percent) ? Math.min(100, Math.max(0, e.percent)) : 0;
  return { provider: e.provider, percent: p };
}

/** Whether a load is still under way (not yet at 100 %). */
export function isLoading(l: ModelLoad | null | undefined): l is ModelLoad {
  return !!l && l.percent < 100;
}

/** Whole percent to show; rounded down so 100 means really done. */
export function shownPercent(l: ModelLoad): number {
  return l.percent >= 100 ? 100 : Math.floor(l.percent);
}

/** The chat placeholder's line. */
export function chatLabel(l: ModelLoad): string {
  return t('models.load.chat', { percent: formatNumber(shownPercent(l)) });
}

/** What the settings panel shows next to the provider being loaded. */
export function settingsLabel(l: ModelLoad): string {
  return l.percent >= 100 ? t('models.load.loaded') : t('models.load.loading', { percent: formatNumber(shownPercent(l)) });
}

/** The load if it concerns `provider`. */
export function loadFor(l: ModelLoad | null | undefined, provider: string): ModelLoad | null {
  return l && l.provider === provider ? l : null;
}
