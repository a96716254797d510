// The attachment chips' model: one chip per pending file, and what a send carries.
import type { AttachmentView } from './bindings';
import { formatSize } from './format';
import { formatNumber, t } from './i18n.svelte';

export type ChipState = 'converting' | 'ready' | 'skipped';

export interface Chip {
  id: string;
  name: string;
  state: ChipState;
  /** Visible detail after the name. */
  detail: string;
  /** Tooltip. */
  title: string;
}

export function chipFor(a: AttachmentView): Chip {
  const s = a.state;
  switch (s.kind) {
    case 'converting':
      return { id: a.id, name: a.name, state: 'converting', detail: t('chat.attachments.converting'), title: t('chat.attachments.convertingTitle', { name: a.name }) };
    case 'ready': {
      const bits = [s.format, formatSize(a.size)];
      if (s.pages !== null) bits.push(t('chat.attachments.pages', { count: s.pages, n: formatNumber(s.pages) }));
      const detail = bits.join(' · ');
      return { id: a.id, name: a.name, state: 'ready', detail, title: t('chat.attachments.readyTitle', { name: a.name, detail }) };
    }
    case 'skipped':
      return { id: a.id, name: a.name, state: 'skipped', detail: s.reason, title: t('chat.attachments.skippedTitle', { name: a.name, reason: s.reason }) };
  }
}

export function chips(list: readonly AttachmentView[]): Chip[] {
  return list.map(chipFor);
}

/** Ids a send carries: ready and skipped ones (skipped go as a note saying why). */
export function sendableIds(list: readonly AttachmentView[]): string[] {
  return list.filter((a) => a.state.kind !== 'converting').map((a) => a.id);
}

/** Whether any attachment is still converting (sending waits for it). */
export function anyConverting(list: readonly AttachmentView[]): boolean {
  return list.some((a) => a.state.kind === 'converting');
}

/** Names shown on the sent user message. */
export function sentNames(list: readonly AttachmentView[]): string[] {
  return list.filter((a) => a.state.kind !== 'converting').map((a) => a.name);
}
