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
  type ChatMessage,
  type TurnState,
} from './chat';
import { anyConverting, sendableIds, sentNames } from './attachments';
import { isLoading, LOADED_LINGER_MS, normalizeLoad } from './modelload';
import { pickAgent } from './agents';
import { projectOf, sortProjects } from './sessions';
import { chats, removedText } from './projects';
import { pane } from './pane';

export interface Toast {
  id: number;
  text: string;
  action?: { label: string; run: () => void };
  tone?: 'info' | 'error';
}

let toastIds = 1;

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
  streaming = $state(false);
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
    const how = r.status === 'answered' ? 'answered' : r.status === 'waiting' ? 'waits for your yes' : 'failed';
    this.toast(`Scheduled task “${r.prompt}” ${how}: ${r.summary}`, {
      tone: r.status === 'failed' ? 'error' : undefined,
      action: { label: 'Open', run: () => void this.openSession(r.session) },
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

  /** An empty chat; in project `projectId` (its first message puts it there), else in none. */
  newChat(projectId: string | null = null): void {
    if (this.streaming) void this.stop();
    this.view++;
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
    if (this.streaming) void this.stop();
    const view = ++this.view;
    this.loadingSession = true;
    try {
      const s = await api.loadSession(id);
      if (view !== this.view) return;
      const next = s.messages.map(fromView);
      // The open one read again: what did not change stays as shown.
      this.messages = reload && s.id === this.sessionId ? keepShown(this.messages, next) : next;
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
    const title = this.sessions.find((s) => s.id === id)?.title || 'chat';
    const to = projectOf(projectId, this.projects);
    this.toast(to ? `Moved “${title}” to ${to.name}.` : `Moved “${title}” out of its project.`, { ms: 3000 });
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
    const name = this.projects.find((p) => p.id === id)?.name ?? 'project';
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
    toastId = this.toast(text, { action: undo ? { label: 'Undo', run: () => void undo() } : undefined, ms: 10000 });
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
      this.toast(`${chats(back.length)} brought back from the trash.`, { ms: 4000 });
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
