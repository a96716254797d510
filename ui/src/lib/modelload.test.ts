// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import { chatLabel, isLoading, LOADED_LINGER_MS, loadFor, normalizeLoad, settingsLabel, shownPercent } from './modelload';
import { Store } from './store.svelte';

describe('model load helpers', () => {
  it('clamps and normalizes percents', () => {
    expect(normalizeLoad({ provider: 'local', percent: 41.7 })).toEqual({ provider: 'local', percent: 41.7 });
    expect(normalizeLoad({ provider: 'local', percent: -3 }).percent).toBe(0);
    expect(normalizeLoad({ provider: 'local', percent: 130 }).percent).toBe(100);
    expect(normalizeLoad({ provider: 'local', percent: Number.NaN }).percent).toBe(0);
  });

  it('labels: rounded down, 100 only when done', () => {
    expect(shownPercent({ provider: 'l', percent: 99.9 })).toBe(99);
    expect(shownPercent({ provider: 'l', percent: 100 })).toBe(100);
    expect(chatLabel({ provider: 'l', percent: 42.4 })).toBe('Loading the local model… 42 %');
    expect(settingsLabel({ provider: 'l', percent: 42.4 })).toBe('loading 42 %');
    expect(settingsLabel({ provider: 'l', percent: 100 })).toBe('loaded');
  });

  it('loading and per-provider lookup', () => {
    expect(isLoading(null)).toBe(false);
    expect(isLoading({ provider: 'l', percent: 0 })).toBe(true);
    expect(isLoading({ provider: 'l', percent: 100 })).toBe(false);
    const l = { provider: 'local', percent: 5 };
    expect(loadFor(l, 'local')).toBe(l);
    expect(loadFor(l, 'openai')).toBeNull();
    expect(loadFor(null, 'local')).toBeNull();
  });
});

describe('store.modelLoad', () => {
  beforeEach(() => {
    mockIPC(
      (cmd) => {
        if (cmd === 'app_info') return { version: 't', provider: 'local', model: 'm', workspace: '/w', warnings: [] };
        if (cmd === 'list_sessions' || cmd === 'list_attachments') return [];
        return null;
      },
      { shouldMockEvents: true },
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    clearMocks();
  });

  it('follows model-load events from init() and clears a moment after 100 %', async () => {
    const store = new Store();
    await store.init();
    expect(store.modelLoad).toBeNull();
    await emit('model-load', { provider: 'local', percent: 0 });
    expect(store.modelLoad).toEqual({ provider: 'local', percent: 0 });
    await emit('model-load', { provider: 'local', percent: 57.5 });
    expect(store.modelLoad).toEqual({ provider: 'local', percent: 57.5 });
    vi.useFakeTimers();
    await emit('model-load', { provider: 'local', percent: 100 });
    expect(store.modelLoad).toEqual({ provider: 'local', percent: 100 });
    vi.advanceTimersByTime(LOADED_LINGER_MS - 1);
    expect(store.modelLoad?.percent).toBe(100);
    vi.advanceTimersByTime(1);
    expect(store.modelLoad).toBeNull();
  });

  it('a new load after 100 % is not cleared by the old timer', () => {
    vi.useFakeTimers();
    const store = new Store();
    store.setModelLoad({ provider: 'local', percent: 100 });
    vi.advanceTimersByTime(LOADED_LINGER_MS / 2);
    store.setModelLoad({ provider: 'other', percent: 10 });
    vi.advanceTimersByTime(LOADED_LINGER_MS * 2);
    expect(store.modelLoad).toEqual({ provider: 'other', percent: 10 });
  });

  it('a load cut short (no 100 %) is cleared when the turn ends', async () => {
    mockIPC(
      (cmd, args) => {
        if (cmd === 'send_message') {
          const ch = (args as { onEvent: { id: number } }).onEvent.id;
          const run = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, d: unknown) => void } }).__TAURI_INTERNALS__.runCallback;
          run(ch, { index: 0, message: { type: 'error', message: 'The model file is damaged.' } });
          run(ch, { index: 1, message: { type: 'done', reason: 'error' } });
          return { sessionId: 's1', title: 't', reason: 'error' };
        }
        if (cmd === 'list_sessions') return [];
        return null;
      },
      { shouldMockEvents: true },
    );
    const store = new Store();
    store.setModelLoad({ provider: 'local', percent: 30 });
    store.composerText = 'hi';
    await store.send();
    expect(store.modelLoad).toBeNull();
  });
});
