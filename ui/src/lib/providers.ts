// A provider entry's readiness as the settings list says it.
import type { ProviderInfo } from './bindings';

/** "ready", "needs an API key", or what the engine found (no server answering…). */
export function providerStatus(p: ProviderInfo): string {
  if (p.ready) return 'ready';
  return p.keyMissing ? 'needs an API key' : p.detail;
}
