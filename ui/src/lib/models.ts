// The Models page's figures from the engine's catalog entries (sizes come
// in bytes; the page shows megabytes and percentages).
import type { CatalogModel } from './bindings';

const MB = 1024 * 1024;

/** The download's size in MB. */
export function sizeMb(m: CatalogModel): number {
  return Math.round(m.size / MB);
}

/** How much of an interrupted download is kept, in percent (`null`: none). */
export function partialPercent(m: CatalogModel): number | null {
  if (m.partialBytes === null) return null;
  return Math.floor((m.partialBytes * 100) / Math.max(m.size, 1));
}
