import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { api } from './lib/api';
import { setLanguage } from './lib/i18n.svelte';
import { pane } from './lib/pane';

const target = document.getElementById('app');
if (!target) throw new Error('#app missing');

/** The page in its language (English if the shell cannot say), then kept in the one chosen later. */
async function start(): Promise<unknown> {
  setLanguage(await api.appLanguage().catch(() => 'en' as const));
  void api.onLanguageChanged(setLanguage).catch(() => {});
  // The quick window (the global shortcut's) and the push-to-talk overlay
  // are pages of their own kind.
  if (pane === 'quick') return import('./QuickWindow.svelte').then((m) => mount(m.default, { target: target! }));
  if (pane === 'talk') return import('./TalkOverlay.svelte').then((m) => mount(m.default, { target: target! }));
  return mount(App, { target: target! });
}

export default start();
