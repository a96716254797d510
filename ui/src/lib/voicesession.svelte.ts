// One voice conversation as the panel drives it (Svelte 5 runes): starts it
// over a Channel, folds its events into `state` once per animation frame,
// and sends push-to-talk, stop-speaking and end. All IPC goes through `api`.
import { api, toIpcError } from './api';
import type { IpcError, VoiceEvent } from './bindings';
import { applyVoiceEvents, idleVoice, voiceFailed, voiceStarted, voiceStarting, type VoiceState } from './voice';

/** Events held before a flush at the latest (a hidden window runs no frames). */
const MAX_QUEUE = 400;
/** How long to wait for `stopped` after `voiceStop` before going idle anyway. */
const STOP_GRACE_MS = 3000;

export class VoiceSession {
  state = $state.raw<VoiceState>(idleVoice());
  /** A rejected command (start, talk, stop…), shown in the panel. */
  failure = $state.raw<IpcError | null>(null);
  /** The push-to-talk button is held. */
  talking = $state(false);

  private queue: VoiceEvent[] = [];
  private raf = 0;
  /** Conversation number: events of an earlier one are dropped. */
  private gen = 0;
  private stopWanted = false;
  private stopTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  get running(): boolean {
    return this.state.phase !== 'idle';
  }

  /** Called after each spoken answer (the conversation was saved). */
  onTurn: (() => void) | null = null;

  /** The saved conversation the turns go to (known once started; kept after the end). */
  sessionId: string | null = null;

  /** Starts: chat `sessionId` continued by voice, else a new one with `agent`. */
  async start(sessionId: string | null = null, agent: string | null = null): Promise<void> {
    if (this.running || this.disposed) return;
    const gen = ++this.gen;
    this.failure = null;
    this.queue = [];
    this.stopWanted = false;
    this.talking = false;
    this.state = voiceStarting(this.state);
    try {
      const info = await api.voiceStart(sessionId, agent, (ev) => this.onEvent(gen, ev));
      if (gen !== this.gen) return;
      this.flush();
      this.state = voiceStarted(this.state, info);
      this.sessionId = info.sessionId;
      if (this.stopWanted || this.disposed) await this.stop();
    } catch (e) {
      if (gen !== this.gen) return;
      this.flush();
      this.failure = toIpcError(e);
      this.state = voiceFailed(this.state);
    }
  }

  /** Push-to-talk: pressed or released (repeats are ignored). */
  talk(pressed: boolean): void {
    if (this.talking === pressed) return;
    if (pressed && (!this.running || this.state.phase === 'starting')) return;
    this.talking = pressed;
    api.voiceTalk(pressed).catch((e: unknown) => {
      if (pressed) this.talking = false;
      this.fail(e);
    });
  }

  stopSpeaking(): void {
    if (!this.running) return;
    api.voiceStopSpeaking().catch((e: unknown) => this.fail(e));
  }

  /** Ends the conversation; the `stopped` event makes the panel idle. */
  async stop(): Promise<void> {
    if (!this.running) return;
    if (this.talking) this.talk(false);
    if (this.state.phase === 'starting') {
      this.stopWanted = true; // sent once `voiceStart` resolves
      return;
    }
    const gen = this.gen;
    try {
      await api.voiceStop();
    } catch (e) {
      this.fail(e);
    }
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = setTimeout(() => {
      this.stopTimer = null;
      if (gen === this.gen && this.running) this.onEvent(gen, { kind: 'stopped' });
    }, STOP_GRACE_MS);
  }

  dismissError(): void {
    this.failure = null;
    if (this.state.error) this.state = { ...this.state, error: null };
  }

  /** The panel is going away: end what runs, drop what comes. */
  dispose(): void {
    if (this.disposed) return;
    void this.stop();
    this.disposed = true;
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  private fail(e: unknown): void {
    this.failure = toIpcError(e);
  }

  private onEvent(gen: number, ev: VoiceEvent): void {
    if (gen !== this.gen) return;
    this.queue.push(ev);
    if (ev.kind === 'answerDone') this.onTurn?.();
    if (ev.kind === 'stopped' || this.queue.length >= MAX_QUEUE) {
      this.flush();
      return;
    }
    if (!this.raf && !this.disposed) this.raf = requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    if (this.raf) {
      cancelAnimationFrame(this.raf);
      this.raf = 0;
    }
    if (this.queue.length === 0) return;
    const evs = this.queue;
    this.queue = [];
    this.state = applyVoiceEvents(this.state, evs);
    if (this.state.phase === 'idle') {
      this.talking = false;
      if (this.stopTimer) clearTimeout(this.stopTimer);
      this.stopTimer = null;
    }
  }
}
