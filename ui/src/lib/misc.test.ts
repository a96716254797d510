import { describe, expect, it } from 'vitest';
import { formatDuration, formatSize, parseTerms } from './format';
import { visibleSessions } from './sessions';
import { bytesToBase64, pastedName } from './base64';
import type { ProviderInfo } from './bindings';
import { providerStatus } from './providers';
import { earlier, initialWindow, later, onLengthChange, wantsFill, INITIAL, MAX_WINDOW, STEP, WINDOW } from './window';

describe('format', () => {
  it('sizes and durations', () => {
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(250 * 1024)).toBe('250 KB');
    expect(formatSize(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatDuration(184)).toBe('184 ms');
    expect(formatDuration(2500)).toBe('2.5 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(null)).toBe('');
  });
  it('parses anonymize terms', () => {
    expect(parseTerms(' Ada Lovelace, ACME\nProject X,, ACME \n')).toEqual(['Ada Lovelace', 'ACME', 'Project X']);
    expect(parseTerms('')).toEqual([]);
  });
});

describe('sessions', () => {
  const list = [
    { id: 'a', title: 'Rust ownership', updatedMs: 1, messageCount: 2, agent: null, voiceTurns: 0, project: null },
    { id: 'b', title: 'Lisbon trip', updatedMs: 3, messageCount: 2, agent: null, voiceTurns: 0, project: null },
    { id: 'c', title: 'rusty nails', updatedMs: 2, messageCount: 2, agent: null, voiceTurns: 0, project: null },
  ];
  it('newest first, filtered by title', () => {
    expect(visibleSessions(list, '').map((s) => s.id)).toEqual(['b', 'c', 'a']);
    expect(visibleSessions(list, ' RUST ').map((s) => s.id)).toEqual(['c', 'a']);
    expect(visibleSessions(list, 'zzz')).toEqual([]);
  });
});

describe('base64', () => {
  it('encodes bytes (also large ones) like btoa', () => {
    expect(bytesToBase64(new TextEncoder().encode('hello'))).toBe('aGVsbG8=');
    const big = new Uint8Array(100_000).map((_, i) => i % 251);
    let bin = '';
    for (const b of big) bin += String.fromCharCode(b);
    expect(bytesToBase64(big)).toBe(btoa(bin));
  });
  it('names pasted files', () => {
    const d = new Date('2025-01-02T03:04:05Z');
    expect(pastedName({ name: 'image.png', type: 'image/png' }, d)).toBe('pasted-2025-01-02-03-04-05.png');
    expect(pastedName({ name: 'doc.pdf', type: 'application/pdf' }, d)).toBe('doc.pdf');
    expect(pastedName({ name: '', type: 'image/jpeg' }, d)).toBe('pasted-2025-01-02-03-04-05.jpg');
  });
});

describe('message window', () => {
  it('starts with the last few and fills up to WINDOW', () => {
    let w = initialWindow(2000);
    expect(w).toEqual({ start: 2000 - INITIAL, end: 2000 });
    let n = 0;
    while (wantsFill(w)) {
      w = earlier(w);
      n++;
    }
    expect(w.end - w.start).toBeGreaterThanOrEqual(WINDOW);
    expect(w.end - w.start).toBeLessThan(WINDOW + STEP);
    expect(n).toBeGreaterThan(1);
    expect(initialWindow(3)).toEqual({ start: 0, end: 3 });
    expect(wantsFill(initialWindow(3))).toBe(false);
  });
  it('never holds more than MAX_WINDOW while sliding', () => {
    let w = initialWindow(2000);
    for (let i = 0; i < 1000; i++) w = earlier(w);
    expect(w.start).toBe(0);
    expect(w.end - w.start).toBeLessThanOrEqual(MAX_WINDOW);
    for (let i = 0; i < 1000; i++) w = later(w, 2000);
    expect(w.end).toBe(2000);
    expect(w.end - w.start).toBeLessThanOrEqual(MAX_WINDOW);
  });
  it('a window pinned to the end follows appended messages', () => {
    expect(onLengthChange({ start: 40, end: 100 }, 100, 102)).toEqual({ start: 40, end: 102 });
    expect(onLengthChange({ start: 10, end: 50 }, 100, 102)).toEqual({ start: 10, end: 50 });
    const grown = onLengthChange({ start: 0, end: 120 }, 120, 130);
    expect(grown.end).toBe(130);
    expect(grown.end - grown.start).toBeLessThanOrEqual(MAX_WINDOW);
  });
});

describe('markInteractive', () => {
  it('marks app-interactive once', async () => {
    const { markInteractive } = await import('./interactive');
    performance.clearMarks('app-interactive');
    markInteractive();
    markInteractive();
    expect(performance.getEntriesByName('app-interactive')).toHaveLength(1);
  });
});

describe('provider status', () => {
  const entry = (ready: boolean, keyMissing: boolean, detail: string): ProviderInfo => ({
    name: 'openai', dialect: 'openai', model: 'gpt-4.1-mini', endpoint: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY',
    interactionMode: 'API', ready, detail, keyMissing, custom: false, isDefault: false, selected: false,
  });
  it('says ready, a missing key, or what the engine found', () => {
    expect(providerStatus(entry(true, false, 'API key in the keychain'))).toBe('ready');
    expect(providerStatus(entry(false, true, 'no API key: run `baton secret set openai`'))).toBe('needs an API key');
    expect(providerStatus(entry(false, false, 'no server answering at http://127.0.0.1:11434'))).toBe('no server answering at http://127.0.0.1:11434');
  });
});
