import { formatNumber, language, t } from './i18n.svelte';

/** A size in bytes for people (`1.5 KB`, `1,5 KB`). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  if (bytes < 1024) return t('format.bytes', { n: formatNumber(bytes) });
  const units = [t('format.kb'), t('format.mb'), t('format.gb'), t('format.tb')];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = v >= 10 ? 0 : 1;
  return `${formatNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units[i]}`;
}

/** A duration for people (`184 ms`, `2.5 s`, `2 min 5 s`). */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '';
  if (ms < 1000) return t('format.ms', { n: formatNumber(Math.round(ms)) });
  if (ms < 60_000) return t('format.seconds', { n: formatNumber(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return t('format.minutesSeconds', { m, s });
}

/** When something happened, for a list: `just now`, `5 min ago`, a time today, else a date. */
export function formatWhen(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const diff = now - ms;
  if (diff < 60_000) return t('format.justNow');
  if (diff < 3_600_000) return t('format.minutesAgo', { n: Math.floor(diff / 60_000) });
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return d.toLocaleTimeString(language(), { hour: '2-digit', minute: '2-digit' });
  return d.toLocaleDateString(language(), { month: 'short', day: 'numeric' });
}

/** Split anonymize terms typed as comma- or line-separated text. */
export function parseTerms(s: string): string[] {
  const out: string[] = [];
  for (const t of s.split(/[,\n]/)) {
    const v = t.trim();
    if (v && !out.includes(v)) out.push(v);
  }
  return out;
}
