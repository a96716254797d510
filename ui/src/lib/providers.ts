// A provider entry's readiness as the settings list says it.
import type { ProviderInfo } from './bindings';
import { t } from './i18n.svelte';

/** "ready", "needs an API key", or what the engine found (no server answering…). */
export function providerStatus(p: ProviderInfo): string {
  if (p.ready) return t('models.provider.ready');
  return p.keyMissing ? t('models.provider.keyMissing') : p.detail;
}
