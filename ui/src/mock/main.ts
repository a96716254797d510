// Mock entry: installs a scripted fake backend behind Tauri's IPC, then starts
// the real UI. `window.__mock` lets tests drive it.
import { mockIPC, mockWindows } from '@tauri-apps/api/mocks';
import { MockBackend } from './backend';
import { pane } from '../lib/pane';

const backend = new MockBackend();
mockWindows(pane);
mockIPC((cmd, args) => backend.handle(cmd, (args ?? {}) as Record<string, unknown>), { shouldMockEvents: true });
(window as unknown as { __mock: MockBackend }).__mock = backend;

// `#big=N` pre-creates a conversation of N messages (scrolling tests).
const big = /big=(\d+)/.exec(location.hash);
if (big) backend.addBigSession(Number(big[1]));
// `#projects` starts with a project holding one of the chats.
if (/\bprojects\b/.test(location.hash)) backend.addDemoProject();

void import('../main');
