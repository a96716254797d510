// The app's state and actions (Svelte 5 runes). Components read it and call
// its methods; all IPC goes through `api`.
import { api, toIpcError } from './api';
import type { AgentInfo, AppInfo, AttachmentView, ChatEvent, IpcError, ModelLoad, NewProject, Project, SessionSummary, TaskRan, TurnEnd, TurnResult } from './bindings';
import {
  answerConfirmation,
  answerQuestion,
  applyEvents,
  assistantMessage,
  finishTurn,
  fromView,
  keepShown,
  lastIndexOfRole,
  messageText,
  reopenConfirmation,
  reopenQuestion,
  userMessage,
  userIndex,
  userOrdinals,
  waitsForUser,
  type ChatMessage,
  type TurnState,
} from './chat';
import { anyConverting, sendableIds, sentNames } from './attachments';
import { isLoading, LOADED_LINGER_MS, normalizeLoad } from './modelload';
import { pickAgent } from './agents';
import { projectOf, sortProjects } from './sessions';
import { removedText } from './projects';
import { announceFor } from './announce';
import { pane } from './pane';
import { formatNumber, t, type MessageKey } from './i18n.svelte';

export interface Toast {
  id: number;
  text: string;
  action?: { label: string; run: () => void };
  tone?: 'info' | 'error';
}

let toastIds = 1;

/** What a chat in the sidebar is doing: answering, waiting for the user, or done (or failed) since last looked at. */
export type Activity = 'working' | 'waiting' | 'done' | 'failed';

/** One turn in flight (one per conversation; several run at once). */
interface Run {
  /** Its conversation (a new chat's arrives with the turn's first event). */
  sessionId: string | null;
  /** The conversation as shown when the turn began (its question included). */
  base: ChatMessage[];
  turn: TurnState;
  queue: ChatEvent[];
  raf: number;
  doneWaiters: (() => void)[];
  /** Stop was pressed before the conversation was known. */
  stopAsked: boolean;
  /** A new chat's project and agent (for its row before it is saved). */
  project: string | null;
  agent: string | null;
}

/**
 * Commands that rewrite the conversation (it is read again after them):
 * `/session reset|compact|load`, `/edit N TEXT`, `/branch N M`.
 */
const REWRITES = /^\/(?:session\s+(?:reset|compact|load)\b|edit\s+\d+\s+\S|branch(?:es)?\s+\d+\s+\d+)/i;

export class Store {
  messages = $state.raw<ChatMessage[]>([]);
  sessionId = $state<string | null>(null);
  title = $state<string | null>(null);
  sessions = $state.raw<SessionSummary[]>([]);
  attachments = $state.raw<AttachmentView[]>([]);
  info = $state.raw<AppInfo | null>(null);
  error = $state.raw<IpcError | null>(null);
  toasts = $state.raw<Toast[]>([]);
  /**
   * The user message being edited (its number among the user messages,
   * 0: the first), or `null`. Sending it makes a new branch there.
   */
  editingAt = $state<number | null>(null);
  /** A branch switch is on its way (nothing is sent until it is in). */
  switching = $state(false);
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
  /** The projects, by name. */
  projects = $state.raw<Project[]>([]);
  /**
   * The project of the chat in view: a saved chat's own, or the one a new
   * chat was started in (it is sent with its first message). An id that is
   * not among `projects` (removed since) counts as none.
   */
  projectId = $state<string | null>(null);

  /** The chats whose turns run or ended unseen, by conversation id (the sidebar shows it). */
  activity = $state.raw<Record<string, Activity>>({});
  /** What a screen reader is told about the turn in view (a polite status line). */
  announcement = $state('');

  /** New chats whose first turn runs: listed before they are saved (when it ends). */
  private unsaved = $state.raw<SessionSummary[]>([]);
  private runs = new Set<Run>();
  /** The run of the chat in view, if one runs. */
  private current = $state.raw<Run | null>(null);
  private view = 0;
  private loadTimer: ReturnType<typeof setTimeout> | null = null;

  async init(): Promise<void> {
    await Promise.all([
      this.refreshInfo(),
      this.refreshSessions(),
      this.refreshProjects(),
      this.refreshAgents(),
      api.onAttachmentsChanged((list) => (this.attachments = list)).catch((e) => this.fail(e)),
      api.onModelLoad((l) => this.setModelLoad(l)).catch((e) => this.fail(e)),
      // Scheduled runs are told in the main window only.
      pane === 'main' ? api.onTaskRan((r) => this.taskRan(r)).catch((e) => this.fail(e)) : null,
      api
        .onSettingsChanged(() => {
          void this.refreshInfo();
          void this.refreshAgents();
          void this.refreshProjects();
        })
        .catch((e) => this.fail(e)),
      api
        .listAttachments()
        .then((l) => (this.attachments = l))
        .catch(() => {}),
    ]);
  }

  /** A scheduled task ran: its chat is listed, and a toast says how it ended, with Open. */
  taskRan(r: TaskRan): void {
    void this.refreshSessions();
    const how: MessageKey = r.status === 'answered' ? 'chat.toast.taskAnswered' : r.status === 'waiting' ? 'chat.toast.taskWaiting' : 'chat.toast.taskFailed';
    this.toast(t(how, { prompt: r.prompt, summary: r.summary }), {
      tone: r.status === 'failed' ? 'error' : undefined,
      action: { label: t('chat.toast.open'), run: () => void this.openSession(r.session) },
      ms: 10000,
    });
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

  async refreshProjects(): Promise<void> {
    try {
      this.projects = sortProjects(await api.listProjects());
    } catch (e) {
      this.fail(e);
    }
  }

  /** The project of the chat in view (`null`: none, or one removed since). */
  get project(): Project | null {
    return projectOf(this.projectId, this.projects);
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

  /** Whether the chat in view is being answered (other chats' turns may run too). */
  get streaming(): boolean {
    return this.current !== null;
  }

  /** Whether a user message is being edited. */
  get editing(): boolean {
    return this.editingAt !== null;
  }

  get canSend(): boolean {
    return !this.streaming && !this.switching && !anyConverting(this.attachments) && (this.composerText.trim().length > 0);
  }

  async send(): Promise<void> {
    const text = this.composerText.trim();
    if (!text || this.streaming || this.switching || anyConverting(this.attachments)) return;
    const ids = sendableIds(this.attachments);
    const names = sentNames(this.attachments);
    // Editing user message `edit`: it and what followed go (kept as a
    // branch by the engine, with the files it carried).
    let edit: number | null = null;
    let carried: string[] = [];
    let base = this.messages;
    const i = this.editingAt === null ? -1 : userIndex(base, this.editingAt);
    if (i >= 0) {
      edit = this.editingAt;
      carried = base[i]!.attachments;
      base = base.slice(0, i);
    }
    this.composerText = '';
    this.editingAt = null;
    this.attachments = []; // the Rust side consumes them
    this.messages = [...base, userMessage(text, [...carried, ...names])];
    // Only a new chat is put in a project this way (a saved one is moved).
    const inProject = this.sessionId === null ? this.project : null;
    const project = inProject ? { project: inProject.id } : {};
    const branch = edit !== null && this.sessionId !== null ? { edit } : {};
    const view = this.view;
    await this.runTurn((onEvent) =>
      api.sendMessage({ sessionId: this.sessionId, text, attachmentIds: ids, replaceLast: false, ...branch, agent: this.agent, ...project }, onEvent),
    );
    // An edit (the branch counters), and commands that rewrite the
    // conversation: show it as stored now.
    if ((edit !== null || REWRITES.test(text)) && this.sessionId && this.view === view) {
      await this.openSession(this.sessionId, true);
    }
  }

  async regenerate(): Promise<void> {
    if (this.streaming || !this.sessionId) return;
    const i = lastIndexOfRole(this.messages, 'assistant');
    if (i >= 0 && i === this.messages.length - 1) this.messages = this.messages.slice(0, i);
    const sid = this.sessionId;
    await this.runTurn((onEvent) => api.regenerate(sid, onEvent));
  }

  /** Puts user message `index` (of `messages`; the last one by default) in the composer to edit and send again. */
  startEdit(index = lastIndexOfRole(this.messages, 'user')): void {
    if (this.streaming) return;
    const m = this.messages[index];
    const at = userOrdinals(this.messages)[index] ?? -1;
    if (!m || m.role !== 'user' || at < 0) return;
    this.composerText = messageText(m);
    this.editingAt = at;
    this.focusComposer++;
  }

  cancelEdit(): void {
    this.editingAt = null;
    this.composerText = '';
  }

  /**
   * Shows branch `to` (0: the oldest) of the branches at user message `at`
   * (0: the first user message). Not while an answer is being written.
   */
  async switchBranch(at: number, to: number): Promise<void> {
    const id = this.sessionId;
    if (this.streaming || this.switching || !id || at < 0 || to < 0) return;
    if (this.editingAt !== null) this.cancelEdit();
    const view = ++this.view;
    this.switching = true;
    try {
      const s = await api.switchBranch(id, at, to);
      if (view !== this.view) return;
      this.title = s.title;
      this.projectId = s.project;
      this.messages = keepShown(this.messages, s.messages.map(fromView));
      this.error = null;
    } catch (e) {
      if (view === this.view) this.fail(e);
    } finally {
      this.switching = false;
    }
  }

  /** Stops the answer being written in the chat in view (others go on). */
  async stop(): Promise<void> {
    const run = this.current;
    if (!run) return;
    if (!run.sessionId) {
      run.stopAsked = true; // sent once the turn says which chat it is
      return;
    }
    await this.stopRun(run.sessionId);
  }

  private async stopRun(sessionId: string): Promise<void> {
    try {
      await api.stopGeneration(sessionId);
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * The user's yes or no to an external action the turn in view waits for.
   * The card shows the answer at once; if it cannot be delivered, it asks
   * again.
   */
  answerConfirmation(id: string, approved: boolean): Promise<void> {
    return this.answerCard(
      (t) => answerConfirmation(t, id, approved),
      (t) => reopenConfirmation(t, id, approved),
      () => api.answerConfirmation(id, approved),
    );
  }

  /**
   * The user's answer to a subagent's question the turn in view waits for
   * (`null`: let the delegating agent answer it). The card shows it at
   * once; if it cannot be delivered, it asks again.
   */
  answerQuestion(sessionId: string, answer: string | null): Promise<void> {
    return this.answerCard(
      (t) => answerQuestion(t, sessionId, answer),
      (t) => reopenQuestion(t, sessionId),
      () => api.answerQuestion(sessionId, answer),
    );
  }

  /** Shows an answer to a card of the turn in view (`answer`), delivers it, and asks again (`reopen`) if that fails. */
  private async answerCard(
    answer: (t: TurnState) => TurnState,
    reopen: (t: TurnState) => TurnState,
    deliver: () => Promise<unknown>,
  ): Promise<void> {
    const run = this.current;
    if (!run) return;
    this.flush(run);
    const before = run.turn;
    run.turn = answer(before);
    if (run.turn === before) return; // not waiting (already answered, or stopped)
    this.publish(run);
    try {
      await deliver();
    } catch (e) {
      if (this.runs.has(run)) {
        run.turn = reopen(run.turn);
        this.publish(run);
      }
      this.fail(e);
    }
  }

  private runOf(id: string): Run | null {
    for (const run of this.runs) if (run.sessionId === id) return run;
    return null;
  }

  private async runTurn(start: (onEvent: (e: ChatEvent) => void) => Promise<TurnResult>): Promise<void> {
    const msg = assistantMessage(true);
    const run: Run = {
      sessionId: this.sessionId,
      base: this.messages,
      turn: { sessionId: this.sessionId, title: this.title, message: msg, done: false },
      queue: [],
      raf: 0,
      doneWaiters: [],
      stopAsked: false,
      project: this.sessionId === null ? (this.project?.id ?? null) : null,
      agent: this.agent,
    };
    this.runs.add(run);
    this.current = run;
    this.messages = [...this.messages, msg];
    this.error = null;
    this.track(run);
    const onEvent = (ev: ChatEvent) => {
      run.queue.push(ev);
      if (ev.type === 'done' || ev.type === 'started') {
        this.flush(run);
        return;
      }
      if (!run.raf) run.raf = requestAnimationFrame(() => this.flush(run));
    };
    let reason: TurnEnd = 'error';
    let failure: IpcError | null = null;
    try {
      const res = await start(onEvent);
      reason = res.reason;
      run.sessionId ??= res.sessionId;
      if (this.current === run && !this.sessionId) {
        this.sessionId = res.sessionId;
        this.title = res.title;
      }
      if (!run.turn.done) await this.waitForDone(run, 1000);
    } catch (e) {
      failure = toIpcError(e);
    }
    this.flush(run);
    if (!run.turn.done) {
      run.turn = finishTurn(run.turn, failure ? 'error' : reason, failure?.message);
      this.publish(run);
    }
    this.runs.delete(run);
    this.ended(run, failure, failure ? 'error' : reason);
    // A load that never reached 100 % (it failed) is over with the turn.
    if (isLoading(this.modelLoad)) this.modelLoad = null;
    void this.refreshSessions();
  }

  /** A turn ended: in view, the composer is free again; away, its chat says so. */
  private ended(run: Run, failure: IpcError | null, reason: TurnEnd): void {
    if (this.current === run) {
      if (failure) this.error = failure;
      this.current = null;
      this.focusComposer++;
      this.track(run);
      return;
    }
    if (!run.sessionId || reason === 'stopped' || reason === 'command') return this.track(run);
    const failed = reason === 'error' || reason === 'limit';
    this.activity = { ...this.activity, [run.sessionId]: failed ? 'failed' : 'done' };
    this.tellAway(run, failed ? 'chat.toast.awayFailed' : 'chat.toast.awayDone');
  }

  /** Marks what `run`'s chat is doing in the sidebar; a chat away that starts waiting for the user is told. */
  private track(run: Run): void {
    const id = run.sessionId;
    if (!id) return;
    const was = this.activity[id];
    const next = { ...this.activity };
    if (!this.runs.has(run)) delete next[id];
    else next[id] = waitsForUser(run.turn) ? 'waiting' : 'working';
    if (next[id] === was) return;
    this.activity = next;
    if (was === undefined && !this.sessions.some((s) => s.id === id)) this.listUnsaved(run, id);
    if (next[id] === 'waiting' && this.current !== run) this.tellAway(run, 'chat.toast.awayWaiting');
  }

  /**
   * A toast about a chat that is not in view, with Open. Only while this
   * window has the focus: otherwise the app raises a native notification.
   */
  private tellAway(run: Run, what: 'chat.toast.awayDone' | 'chat.toast.awayFailed' | 'chat.toast.awayWaiting'): void {
    if (!run.sessionId || !document.hasFocus()) return;
    const id = run.sessionId;
    const title = run.turn.title ?? this.sessions.find((s) => s.id === id)?.title ?? t('chat.toast.someChat');
    this.toast(t(what, { title }), { action: { label: t('chat.toast.open'), run: () => void this.openSession(id) }, ms: 8000 });
  }

  private listUnsaved(run: Run, id: string): void {
    const row: SessionSummary = {
      id,
      title: run.turn.title ?? t('app.newChat'),
      updatedMs: Date.now(),
      messageCount: run.base.length,
      agent: run.agent,
      voiceTurns: 0,
      project: run.project,
    };
    this.unsaved = [row, ...this.unsaved.filter((s) => s.id !== id)];
  }

  /** The chats to list: new ones still answering their first message (not saved yet) on top, then the saved ones. */
  get listed(): SessionSummary[] {
    const saved = new Set(this.sessions.map((s) => s.id));
    const pending = this.unsaved.filter((s) => !saved.has(s.id) && this.activity[s.id] !== undefined);
    return pending.length ? [...pending, ...this.sessions] : this.sessions;
  }

  /** Conversation `id` is in view: its finished mark goes. */
  private seen(id: string): void {
    const a = this.activity[id];
    if (a !== 'done' && a !== 'failed') return;
    const next = { ...this.activity };
    delete next[id];
    this.activity = next;
  }

  private waitForDone(run: Run, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      run.doneWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private flush(run: Run): void {
    if (run.raf) {
      cancelAnimationFrame(run.raf);
      run.raf = 0;
    }
    if (run.queue.length === 0) return;
    const evs = run.queue;
    run.queue = [];
    run.turn = applyEvents(run.turn, evs);
    const line = run === this.current ? announceFor(evs, run.turn) : null;
    if (line) this.announcement = line;
    if (!run.sessionId && run.turn.sessionId) {
      run.sessionId = run.turn.sessionId;
      if (run.stopAsked) void this.stopRun(run.sessionId);
    }
    this.publish(run);
    this.track(run);
    if (run.turn.done) {
      const ws = run.doneWaiters;
      run.doneWaiters = [];
      ws.forEach((w) => w());
    }
  }

  /** Shows `run`'s turn if it is the chat in view. */
  private publish(run: Run): void {
    if (run !== this.current) return;
    const t = run.turn;
    if (t.sessionId && this.sessionId !== t.sessionId) {
      this.sessionId = t.sessionId;
      this.title = t.title;
    }
    const ms = this.messages;
    const last = ms[ms.length - 1];
    if (last && last.key === t.message.key) this.messages = [...ms.slice(0, -1), t.message];
  }

  // -------------------------------------------------------------- sessions

  /** An empty chat; in project `projectId` (its first message puts it there), else in none. */
  newChat(projectId: string | null = null): void {
    // A turn running here goes on in the background.
    this.view++;
    this.current = null;
    this.messages = [];
    this.sessionId = null;
    this.title = null;
    const project = projectOf(projectId, this.projects);
    this.projectId = project?.id ?? null;
    // The project's agent is picked for its new chats (the user may pick another).
    if (project?.agent) this.agent = pickAgent(this.agents, project.agent);
    this.editingAt = null;
    this.error = null;
    this.focusComposer++;
  }

  /** Shows conversation `id`; `reload` reads it again even when it is the open one (voice added to it). */
  async openSession(id: string, reload = false): Promise<void> {
    if (id === this.sessionId && !this.loadingSession && !reload) return;
    // A turn running in the chat left goes on in the background (and is
    // marked as such if it ends while this one loads).
    const view = ++this.view;
    if (this.current?.sessionId !== id) this.current = null;
    this.loadingSession = true;
    try {
      const s = await api.loadSession(id);
      if (view !== this.view) return;
      const run = this.runOf(s.id);
      this.current = run;
      if (run) this.messages = [...run.base, run.turn.message];
      else {
        const next = s.messages.map(fromView);
        // The open one read again: what did not change stays as shown.
        this.messages = reload && s.id === this.sessionId ? keepShown(this.messages, next) : next;
      }
      this.seen(s.id);
      this.sessionId = s.id;
      this.title = s.title;
      this.projectId = s.project;
      this.agent = pickAgent(this.agents, s.agent);
      this.editingAt = null;
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
    this.toast(t('chat.toast.deleted', { title: old?.title ?? t('chat.toast.untitledChat') }), {
      action: { label: t('chat.toast.undo'), run: () => void this.restoreSession(id) },
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

  /** Moves saved chat `id` into project `projectId` (`null`: out of any). */
  async moveSession(id: string, projectId: string | null): Promise<void> {
    try {
      await api.moveSession(id, projectId);
    } catch (e) {
      this.fail(e);
      return;
    }
    this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, project: projectId } : s));
    if (this.sessionId === id) this.projectId = projectId;
    const title = this.sessions.find((s) => s.id === id)?.title || t('chat.toast.untitledChat');
    const to = projectOf(projectId, this.projects);
    this.toast(to ? t('chat.toast.moved', { title, project: to.name }) : t('chat.toast.movedOut', { title }), { ms: 3000 });
  }

  // -------------------------------------------------------------- projects

  /**
   * Makes a project (`id` null) or changes project `id`; the project saved.
   * Throws what the command threw (the form shows it).
   */
  async saveProject(id: string | null, project: NewProject): Promise<Project> {
    const saved = id === null ? await api.createProject(project) : await api.updateProject(id, project);
    this.projects = sortProjects([...this.projects.filter((p) => p.id !== saved.id), saved]);
    return saved;
  }

  /**
   * Removes project `id`: its chats go to the trash. A toast says so, with
   * an Undo that brings the chats back (outside any project: the project
   * itself stays removed); the same words and undo are returned for the
   * settings panel, which covers the toast while open. Undo works once.
   * Throws what the command threw (the settings section shows it).
   */
  async deleteProject(id: string): Promise<{ text: string; undo: (() => Promise<void>) | null }> {
    const name = this.projects.find((p) => p.id === id)?.name ?? t('chat.toast.unnamedProject');
    const trashed = await api.deleteProject(id);
    const gone = new Set(trashed);
    this.projects = this.projects.filter((p) => p.id !== id);
    this.sessions = this.sessions.filter((s) => !gone.has(s.id));
    if (this.sessionId !== null && gone.has(this.sessionId)) this.newChat();
    else if (this.projectId === id) this.projectId = null;
    const text = removedText(name, trashed.length);
    let undone = false;
    let toastId = 0;
    const undo =
      trashed.length > 0
        ? async () => {
            if (undone) return;
            undone = true;
            this.dismissToast(toastId);
            await this.restoreSessions(trashed);
          }
        : null;
    toastId = this.toast(text, { action: undo ? { label: t('chat.toast.undo'), run: () => void undo() } : undefined, ms: 10000 });
    return { text, undo };
  }

  /** Brings chats `ids` back from the trash (those that can be). */
  async restoreSessions(ids: readonly string[]): Promise<void> {
    const back: SessionSummary[] = [];
    let failure: unknown = null;
    for (const id of ids) {
      try {
        back.push(await api.restoreSession(id));
      } catch (e) {
        failure ??= e;
      }
    }
    if (back.length > 0) {
      const ids = new Set(back.map((s) => s.id));
      this.sessions = [...back, ...this.sessions.filter((s) => !ids.has(s.id))];
      this.toast(t('chat.toast.restored', { count: back.length, n: formatNumber(back.length) }), { ms: 4000 });
    }
    if (failure !== null) this.fail(failure);
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
