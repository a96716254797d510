import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { pane } from './lib/pane';

const target = document.getElementById('app');
if (!target) throw new Error('#app missing');
// The quick window (the global shortcut's) and the push-to-talk overlay
// are pages of their own kind.
export default pane === 'quick'
  ? import('./QuickWindow.svelte').then((m) => mount(m.default, { target }))
  : pane === 'talk'
    ? import('./TalkOverlay.svelte').then((m) => mount(m.default, { target }))
    : mount(App, { target });
