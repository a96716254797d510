// The app's state and actions (Svelte 5 runes). Components read it and call
// its methods; all IPC goes through `api`.
import { api, toIpcError } from './api';
import type { AgentInfo, AppInfo, AttachmentView, ChatEvent, IpcError, ModelLoad, SessionSummary, TurnEnd, TurnResult } from './bindings';
import {
  answerConfirmation,
  answerQuestion,
  applyEvents,
  assistantMessage,
  finishTurn,
  fromView,
  lastIndexOfRole,
  messageText,
  reopenConfirmation,
  reopenQuestion,
  userMessage,
  type ChatMessage,
  type TurnState,
} from './chat';
import { anyConverting, sendableIds, sentNames } from './attachments';
import { isLoading, LOADED_LINGER_MS, normalizeLoad } from './modelload';
import { pickAgent } from './agents';

export interface Toast {
  id: number;
  text: string;
  action?: { label: string; run: () => void };
  tone?: 'info' | 'error';
}

let toastIds = 1;

export class Store {
  messages = $state.raw<ChatMessage[]>([]);
  sessionId = $state<string | null>(null);
  title = $state<string | null>(null);
  sessions = $state.raw<SessionSummary[]>([]);
  attachments = $state.raw<AttachmentView[]>([]);
  streaming = $state(false);
  info = $state.raw<AppInfo | null>(null);
  error = $state.raw<IpcError | null>(null);
  toasts = $state.raw<Toast[]>([]);
  /** Edit-and-resend of the last user message in progress. */
  editing = $state(false);
  composerText = $state('');
  loadingSession = $state(false);
  /** Bumped when the composer should take focus. */
  focusComposer = $state(0);
  /** The embedded model loading into memory (cleared a moment after 100 %). */
  modelLoad = $state.raw<ModelLoad | null>(null);
  /** The named agents (`agents.json`), for the picker. */
  agents = $state.raw<AgentInfo[]>([]);
  /** The agent new conversations use and each message of this one is sent to (`null` until the list is in). */
  agent = $state<string | null>(null);

  private turn: TurnState | null = null;
  private queue: ChatEvent[] = [];
  private raf = 0;
  private view = 0;
  private doneWaiters: (() => void)[] = [];
  private loadTimer: ReturnType<typeof setTimeout> | null = null;

  async init(): Promise<void> {
    await Promise.all([
      this.refreshInfo(),
      this.refreshSessions(),
      this.refreshAgents(),
      api.onAttachmentsChanged((list) => (this.attachments = list)).catch((e) => this.fail(e)),
      api.onModelLoad((l) => this.setModelLoad(l)).catch((e) => this.fail(e)),
      api
        .onSettingsChanged(() => {
          void this.refreshInfo();
          void this.refreshAgents();
        })
        .catch((e) => this.fail(e)),
      api
        .listAttachments()
        .then((l) => (this.attachments = l))
        .catch(() => {}),
    ]);
  }

  /** A `model-load` event: show it; once at 100 %, clear it a moment later. */
  setModelLoad(l: ModelLoad): void {
    if (this.loadTimer) clearTimeout(this.loadTimer);
    this.loadTimer = null;
    const next = normalizeLoad(l);
    this.modelLoad = next;
    if (!isLoading(next)) {
      this.loadTimer = setTimeout(() => {
        this.loadTimer = null;
        if (this.modelLoad === next) this.modelLoad = null;
      }, LOADED_LINGER_MS);
    }
  }

  fail(e: unknown): IpcError {
    const err = toIpcError(e);
    this.error = err;
    return err;
  }

  toast(text: string, opts: { action?: Toast['action']; tone?: Toast['tone']; ms?: number } = {}): number {
    const t: Toast = { id: toastIds++, text, action: opts.action, tone: opts.tone };
    this.toasts = [...this.toasts, t];
    setTimeout(() => this.dismissToast(t.id), opts.ms ?? 6000);
    return t.id;
  }

  dismissToast(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  async refreshInfo(): Promise<void> {
    try {
      this.info = await api.appInfo();
    } catch (e) {
      this.fail(e);
    }
  }

  async refreshSessions(): Promise<void> {
    try {
      this.sessions = await api.listSessions();
    } catch (e) {
      this.fail(e);
    }
  }

  async refreshAgents(): Promise<void> {
    try {
      this.agents = await api.listAgents();
      this.agent = pickAgent(this.agents, this.agent);
    } catch (e) {
      this.fail(e);
    }
  }

  /** The user picked agent `name` (for this conversation's next messages and new ones). */
  setAgent(name: string): void {
    if (this.agents.some((a) => a.name === name)) this.agent = name;
  }

  // ------------------------------------------------------------------ chat

  get canSend(): boolean {
    return !this.streaming && !anyConverting(this.attachments) && (this.composerText.trim().length > 0);
  }

  async send(): Promise<void> {
    const text = this.composerText.trim();
    if (!text || this.streaming || anyConverting(this.attachments)) return;
    const replaceLast = this.editing;
    const ids = sendableIds(this.attachments);
    const names = sentNames(this.attachments);
    let base = this.messages;
    if (replaceLast) {
      const i = lastIndexOfRole(base, 'user');
      if (i >= 0) base = base.slice(0, i);
    }
    this.composerText = '';
    this.editing = false;
    this.attachments = []; // the Rust side consumes them
    this.messages = [...base, userMessage(text, names)];
    await this.runTurn((onEvent) =>
      api.sendMessage({ sessionId: this.sessionId, text, attachmentIds: ids, replaceLast, agent: this.agent }, onEvent),
    );
    // Commands that rewrite the conversation: show it as stored now.
    if (/^\/session\s+(reset|compact|load)\b/i.test(text) && this.sessionId) {
      await this.openSession(this.sessionId);
    }
  }

  async regenerate(): Promise<void> {
    if (this.streaming || !this.sessionId) return;
    const i = lastIndexOfRole(this.messages, 'assistant');
    if (i >= 0 && i === this.messages.length - 1) this.messages = this.messages.slice(0, i);
    const sid = this.sessionId;
    await this.runTurn((onEvent) => api.regenerate(sid, onEvent));
  }

  startEdit(): void {
    if (this.streaming) return;
    const i = lastIndexOfRole(this.messages, 'user');
    if (i < 0) return;
    this.composerText = messageText(this.messages[i]!);
    this.editing = true;
    this.focusComposer++;
  }

  cancelEdit(): void {
    this.editing = false;
    this.composerText = '';
  }

  async stop(): Promise<void> {
    if (!this.streaming) return;
    try {
      await api.stopGeneration();
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * The user's yes or no to an external action the turn waits for. The card
   * shows the answer at once; if it cannot be delivered, it asks again.
   */
  async answerConfirmation(id: string, approved: boolean): Promise<void> {
    if (!this.turn) return;
    this.flush();
    const view = this.view;
    const before = this.turn;
    this.turn = answerConfirmation(before, id, approved);
    if (this.turn === before) return; // not waiting (already answered, or stopped)
    this.publish(view);
    try {
      await api.answerConfirmation(id, approved);
    } catch (e) {
      if (this.turn && this.turn.message.key === before.message.key) {
        this.turn = reopenConfirmation(this.turn, id, approved);
        this.publish(view);
      }
      this.fail(e);
    }
  }

  /**
   * The user's answer to a subagent's question the turn waits for (`null`:
   * let the delegating agent answer it). The card shows it at once; if it
   * cannot be delivered, it asks again.
   */
  async answerQuestion(sessionId: string, answer: string | null): Promise<void> {
    if (!this.turn) return;
    this.flush();
    const view = this.view;
    const before = this.turn;
    this.turn = answerQuestion(before, sessionId, answer);
    if (this.turn === before) return; // not waiting (already answered, or stopped)
    this.publish(view);
    try {
      await api.answerQuestion(sessionId, answer);
    } catch (e) {
      if (this.turn && this.turn.message.key === before.message.key) {
        this.turn = reopenQuestion(this.turn, sessionId);
        this.publish(view);
      }
      this.fail(e);
    }
  }

  private async runTurn(start: (onEvent: (e: ChatEvent) => void) => Promise<TurnResult>): Promise<void> {
    const view = this.view;
    const msg = assistantMessage(true);
    this.turn = { sessionId: this.sessionId, title: this.title, message: msg, done: false };
    this.messages = [...this.messages, msg];
    this.streaming = true;
    this.error = null;
    const onEvent = (ev: ChatEvent) => {
      this.queue.push(ev);
      if (ev.type === 'done') {
        this.flush();
        return;
      }
      if (!this.raf) this.raf = requestAnimationFrame(() => this.flush());
    };
    let reason: TurnEnd = 'error';
    let failure: IpcError | null = null;
    try {
      const res = await start(onEvent);
      reason = res.reason;
      if (this.view === view && !this.sessionId) {
        this.sessionId = res.sessionId;
        this.title = res.title;
      }
      if (this.turn && !this.turn.done) await this.waitForDone(1000);
    } catch (e) {
      failure = toIpcError(e);
    }
    this.flush();
    if (this.turn && !this.turn.done) {
      this.turn = finishTurn(this.turn, failure ? 'error' : reason, failure?.message);
      this.publish(view);
    }
    if (failure && this.view === view) this.error = failure;
    // A load that never reached 100 % (it failed) is over with the turn.
    if (isLoading(this.modelLoad)) this.modelLoad = null;
    this.turn = null;
    this.streaming = false;
    this.focusComposer++;
    void this.refreshSessions();
  }

  private waitForDone(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.doneWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private flush(): void {
    if (this.raf) {
      cancelAnimationFrame(this.raf);
      this.raf = 0;
    }
    if (!this.turn || this.queue.length === 0) return;
    const evs = this.queue;
    this.queue = [];
    this.turn = applyEvents(this.turn, evs);
    this.publish(this.view);
    if (this.turn.done) {
      const ws = this.doneWaiters;
      this.doneWaiters = [];
      ws.forEach((w) => w());
    }
  }

  private publish(view: number): void {
    if (!this.turn || view !== this.view) return;
    const t = this.turn;
    if (t.sessionId && this.sessionId !== t.sessionId) {
      this.sessionId = t.sessionId;
      this.title = t.title;
    }
    const ms = this.messages;
    const last = ms[ms.length - 1];
    if (last && last.key === t.message.key) this.messages = [...ms.slice(0, -1), t.message];
  }

  // -------------------------------------------------------------- sessions

  newChat(): void {
    if (this.streaming) void this.stop();
    this.view++;
    this.messages = [];
    this.sessionId = null;
    this.title = null;
    this.editing = false;
    this.error = null;
    this.focusComposer++;
  }

  /** Shows conversation `id`; `reload` reads it again even when it is the open one (voice added to it). */
  async openSession(id: string, reload = false): Promise<void> {
    if (id === this.sessionId && !this.loadingSession && !reload) return;
    if (this.streaming) void this.stop();
    const view = ++this.view;
    this.loadingSession = true;
    try {
      const s = await api.loadSession(id);
      if (view !== this.view) return;
      this.sessionId = s.id;
      this.title = s.title;
      this.messages = s.messages.map(fromView);
      this.agent = pickAgent(this.agents, s.agent);
      this.editing = false;
      this.error = null;
    } catch (e) {
      if (view === this.view) this.fail(e);
    } finally {
      if (view === this.view) this.loadingSession = false;
    }
  }

  async renameSession(id: string, title: string): Promise<void> {
    const t = title.trim();
    if (!t) return;
    try {
      const s = await api.renameSession(id, t);
      this.sessions = this.sessions.map((x) => (x.id === id ? s : x));
      if (this.sessionId === id) this.title = s.title;
    } catch (e) {
      this.fail(e);
    }
  }

  async deleteSession(id: string): Promise<void> {
    const old = this.sessions.find((s) => s.id === id);
    try {
      await api.deleteSession(id);
    } catch (e) {
      this.fail(e);
      return;
    }
    this.sessions = this.sessions.filter((s) => s.id !== id);
    if (this.sessionId === id) this.newChat();
    this.toast(`Deleted “${old?.title ?? 'chat'}”.`, {
      action: { label: 'Undo', run: () => void this.restoreSession(id) },
      ms: 6000,
    });
  }

  async restoreSession(id: string): Promise<void> {
    try {
      const s = await api.restoreSession(id);
      this.sessions = [s, ...this.sessions.filter((x) => x.id !== s.id)];
    } catch (e) {
      this.fail(e);
    }
  }

  // ----------------------------------------------------------- attachments

  async attachPaths(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    try {
      this.attachments = await api.attachPaths(paths);
    } catch (e) {
      this.fail(e);
    }
  }

  async attachBytes(name: string, b64: string): Promise<void> {
    try {
      this.attachments = await api.attachBytes(name, b64);
    } catch (e) {
      this.fail(e);
    }
  }

  async removeAttachment(id: string): Promise<void> {
    try {
      this.attachments = await api.removeAttachment(id);
    } catch (e) {
      this.fail(e);
    }
  }
}

export const store = new Store();
