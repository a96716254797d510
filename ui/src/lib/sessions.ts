import type { SessionSummary } from './bindings';

/** Newest first, filtered by a case-insensitive title search. */
export function visibleSessions(list: readonly SessionSummary[], query: string): SessionSummary[] {
  const q = query.trim().toLowerCase();
  return list
    .filter((s) => !q || s.title.toLowerCase().includes(q))
    .sort((a, b) => b.updatedMs - a.updatedMs);
}
