// The only module that knows how the UI talks to the Rust side. Everything
// goes through the generated `commands`/`events`; failures become `ApiError`
// (a stable code, one sentence and optional details) for the UI to show.
// Nothing here stores settings or API keys anywhere: the keychain (Rust side)
// is the only store.
import { Channel } from '@tauri-apps/api/core';
import type { UnlistenFn } from '@tauri-apps/api/event';
import {
  commands,
  events,
  type AgentInfo,
  type AppInfo,
  type AttachmentView,
  type AudioDevices,
  type BrowserSettingsView,
  type BrowserTest,
  type ChatEvent,
  type DesktopSettings,
  type DesktopStatus,
  type ErrorCode,
  type IndexStatus,
  type IpcError,
  type Language,
  type KeyStatus,
  type MailSettingsView,
  type McpOverview,
  type Memory,
  type ExportFormat,
  type ImportReport,
  type ModelsOverview,
  type PulledModel,
  type Progress,
  type McpPromptView,
  type NewMcpServer,
  type NewProject,
  type OrchestrationEvent,
  type OrchestrationResult,
  type ReportFormat,
  type ResearchEvent,
  type ResearchReport,
  type ResearchSettingsView,
  type ServerSettings,
  type HttpApiStatus,
  type MailTest,
  type ModelLoad,
  type Project,
  type ProviderInfo,
  type RestoredFile,
  type SendRequest,
  type SessionSummary,
  type SessionView,
  type SettingsChanged,
  type SettingsView,
  type ScheduledTask,
  type TaskRan,
  type TurnResult,
  type VoiceEvent,
  type VoiceSettingsView,
  type VoiceStarted,
  type WindowRequest,
  type TalkEvent,
} from './bindings';
import { t } from './i18n.svelte';
import { pane } from './pane';

export type * from './bindings';

/**
 * A settings section as the shell sends it: every field is present. (Its
 * generated type marks fields optional because the shell also accepts a
 * section with some left out, as the settings file does.)
 */
export type Full<T> = T extends readonly (infer U)[]
  ? Full<U>[]
  : T extends object
    ? { [K in keyof T]-?: Full<Exclude<T[K], undefined>> }
    : T;

/** What every generated command resolves to. */
export type Result<T, E> = { status: 'ok'; data: T } | { status: 'error'; error: E };

const CODES: readonly ErrorCode[] = [
  'invalid_input',
  'not_found',
  'provider',
  'keychain',
  'io',
  'busy',
  'config',
  'audio',
  'internal',
];

/** A failed command, as the UI shows it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: string | null;
  constructor(e: IpcError) {
    super(e.message);
    this.name = 'ApiError';
    this.code = e.code;
    this.details = e.details;
  }
  toIpcError(): IpcError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Turn anything a command can reject with into an `IpcError`. */
export function toIpcError(e: unknown): IpcError {
  if (e instanceof ApiError) return e.toIpcError();
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const o = e as { code: unknown; message: unknown; details?: unknown };
    const code = CODES.includes(o.code as ErrorCode) ? (o.code as ErrorCode) : 'internal';
    return {
      code,
      message: String(o.message),
      details: typeof o.details === 'string' ? o.details : null,
    };
  }
  if (e instanceof Error) return { code: 'internal', message: e.message, details: e.stack ?? null };
  return { code: 'internal', message: typeof e === 'string' ? e : t('common.somethingWrong'), details: null };
}

/** Unwrap a command result, throwing `ApiError` on `{status: "error"}`. */
export function unwrap<T>(r: Result<T, IpcError>): T {
  if (r.status === 'ok') return r.data;
  throw new ApiError(toIpcError(r.error));
}

async function call<T>(p: Promise<Result<T, IpcError>>): Promise<T> {
  try {
    return unwrap(await p);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(toIpcError(e));
  }
}

function channel(onEvent: (e: ChatEvent) => void): Channel<ChatEvent> {
  return new Channel<ChatEvent>(onEvent);
}

export const api = {
  // chat
  sendMessage: (request: SendRequest, onEvent: (e: ChatEvent) => void): Promise<TurnResult> =>
    call(commands.sendMessage(request, channel(onEvent))),
  regenerate: (sessionId: string, onEvent: (e: ChatEvent) => void): Promise<TurnResult> =>
    call(commands.regenerate(sessionId, channel(onEvent))),
  /** Stops conversation `sessionId`'s answer in progress (other chats' go on). */
  stopGeneration: (sessionId: string): Promise<boolean> => call(commands.stopGeneration(sessionId)),
  /** The user's answer to a confirmation request of the turn in flight; `false` when none such waits. */
  answerConfirmation: (id: string, approved: boolean): Promise<boolean> => call(commands.answerConfirmation(id, approved)),
  /** The user's answer to a subagent's question the turn waits for (`null`: let the delegating agent answer); fails when none such waits. */
  answerQuestion: (questionId: string, answer: string | null): Promise<null> => call(commands.answerQuestion(questionId, answer)),
  /** The named agents, for the picker. */
  listAgents: (): Promise<AgentInfo[]> => call(commands.listAgents()),
  // files
  /**
   * Puts back the version of workspace file `path` that a save replaced
   * (`backup`, as the tool result named it; `null`: the most recent backup).
   * The current version is kept as a backup first. Fails while a turn runs.
   */
  restoreBackup: (path: string, backup: string | null): Promise<RestoredFile> => call(commands.restoreBackup(path, backup)),
  /** Opens a workspace file (a cited document) in the system's viewer. */
  openWorkspaceFile: (path: string): Promise<null> => call(commands.openWorkspaceFile(path)),
  // attachments
  attachPaths: (paths: string[]): Promise<AttachmentView[]> => call(commands.attachPaths(paths)),
  attachBytes: (name: string, dataBase64: string): Promise<AttachmentView[]> =>
    call(commands.attachBytes(name, dataBase64)),
  removeAttachment: (id: string): Promise<AttachmentView[]> => call(commands.removeAttachment(id)),
  listAttachments: (): Promise<AttachmentView[]> => call(commands.listAttachments()),
  // sessions
  listSessions: (): Promise<SessionSummary[]> => call(commands.listSessions()),
  loadSession: (id: string): Promise<SessionView> => call(commands.loadSession(id)),
  renameSession: (id: string, title: string): Promise<SessionSummary> => call(commands.renameSession(id, title)),
  deleteSession: (id: string): Promise<null> => call(commands.deleteSession(id)),
  restoreSession: (id: string): Promise<SessionSummary> => call(commands.restoreSession(id)),
  /**
   * Shows branch `to` (0: the oldest) of the branches at user message `at`
   * (0: the first) of conversation `id`; the conversation as it is then.
   */
  switchBranch: (id: string, at: number, to: number): Promise<SessionView> => call(commands.switchBranch(id, at, to)),
  /** Moves a saved chat into project `project` (`null`: out of any). */
  moveSession: (id: string, project: string | null): Promise<null> => call(commands.moveSession(id, project)),
  // projects
  /** Every project, by name. */
  listProjects: (): Promise<Project[]> => call(commands.listProjects()),
  /** Makes a project (its folder too, when missing); fails on a taken or bad name, or a relative folder. */
  createProject: (project: NewProject): Promise<Project> => call(commands.createProject(project)),
  updateProject: (id: string, project: NewProject): Promise<Project> => call(commands.updateProject(id, project)),
  /** Removes a project; its chats go to the trash (the ids returned, for `restoreSession`), its folder stays. */
  deleteProject: (id: string): Promise<string[]> => call(commands.deleteProject(id)),
  // settings
  appInfo: (): Promise<AppInfo> => call(commands.appInfo()),
  getSettings: (): Promise<SettingsView> => call(commands.getSettings()),
  saveSettings: (settings: SettingsView): Promise<SettingsView> => call(commands.saveSettings(settings)),
  listProviders: (): Promise<ProviderInfo[]> => call(commands.listProviders()),
  updateProvider: (name: string, endpoint: string | null, model: string | null): Promise<ProviderInfo> =>
    call(commands.updateProvider(name, endpoint, model)),
  keyStatus: (provider: string): Promise<KeyStatus> => call(commands.keyStatus(provider)),
  setApiKey: (provider: string, key: string): Promise<KeyStatus> => call(commands.setApiKey(provider, key)),
  deleteApiKey: (provider: string): Promise<KeyStatus> => call(commands.deleteApiKey(provider)),
  // index
  indexStatus: (): Promise<IndexStatus> => call(commands.indexStatus()),
  rebuildIndex: (): Promise<IndexStatus> => call(commands.rebuildIndex()),
  // browser
  browserSettings: (): Promise<Full<BrowserSettingsView>> => call(commands.browserSettings()) as Promise<Full<BrowserSettingsView>>,
  saveBrowserSettings: (settings: BrowserSettingsView): Promise<Full<BrowserSettingsView>> =>
    call(commands.saveBrowserSettings(settings)) as Promise<Full<BrowserSettingsView>>,
  testBrowser: (): Promise<BrowserTest> => call(commands.testBrowser()),
  // e-mail
  mailSettings: (): Promise<Full<MailSettingsView>> => call(commands.mailSettings()) as Promise<Full<MailSettingsView>>,
  saveMailSettings: (settings: MailSettingsView, imapPassword: string | null, smtpPassword: string | null): Promise<Full<MailSettingsView>> =>
    call(commands.saveMailSettings(settings, imapPassword, smtpPassword)) as Promise<Full<MailSettingsView>>,
  testMail: (): Promise<MailTest> => call(commands.testMail()),
  // plugins & MCP
  mcpServers: (): Promise<McpOverview> => call(commands.mcpServers()),
  /** Writes every saved conversation into `dir`; how many. */
  exportConversations: (dir: string, format: ExportFormat, session: string | null = null, project: string | null = null): Promise<number> =>
    call(commands.exportConversations(dir, format, session, project)),
  /** Brings in a Baton, ChatGPT or Claude export. */
  importConversations: (path: string): Promise<ImportReport> => call(commands.importConversations(path)),
  /** What Baton remembers about the user across chats, oldest first. */
  listMemories: (): Promise<Memory[]> => call(commands.listMemories()),
  addMemory: (text: string): Promise<Memory[]> => call(commands.addMemory(text)),
  updateMemory: (id: string, text: string): Promise<Memory[]> => call(commands.updateMemory(id, text)),
  forgetMemory: (id: string): Promise<Memory[]> => call(commands.forgetMemory(id)),
  // scheduled tasks
  listTasks: (): Promise<ScheduledTask[]> => call(commands.listTasks()),
  /** Makes a task: `when` in plain words, a date or a cron pattern; `email`: each answer e-mailed too; the list after. */
  addTask: (prompt: string, when: string, agent: string | null, email: boolean): Promise<ScheduledTask[]> =>
    call(commands.addTask(prompt, when, agent, email)),
  removeTask: (id: string): Promise<ScheduledTask[]> => call(commands.removeTask(id)),
  /** Runs a task now; its answer goes to its chat. */
  runTask: (id: string): Promise<TaskRan> => call(commands.runTask(id)),
  setMcpServerEnabled: (name: string, enabled: boolean): Promise<McpOverview> => call(commands.setMcpServerEnabled(name, enabled)),
  setMcpServerTrusted: (name: string, trusted: boolean): Promise<McpOverview> => call(commands.setMcpServerTrusted(name, trusted)),
  addMcpServer: (name: string, server: NewMcpServer): Promise<McpOverview> => call(commands.addMcpServer(name, server)),
  mcpPrompts: (): Promise<McpPromptView[]> => call(commands.mcpPrompts()),
  // local models
  modelsOverview: (): Promise<ModelsOverview> => call(commands.modelsOverview()),
  rescanLocalServers: (): Promise<ModelsOverview> => call(commands.rescanLocalServers()),
  /** Downloads a catalog model; progress arrives on `onProgress` while it runs. */
  pullModel: (name: string, onProgress: (p: Progress) => void): Promise<PulledModel> =>
    call(commands.pullModel(name, new Channel<Progress>(onProgress))),
  cancelPull: (name: string): Promise<boolean> => call(commands.cancelPull(name)),
  removeModel: (name: string): Promise<boolean> => call(commands.removeModel(name)),
  // team mode
  /** Runs the team; each stage arrives on `onEvent` as it happens. */
  runTeam: (prompt: string, onEvent: (e: OrchestrationEvent) => void): Promise<OrchestrationResult> =>
    call(commands.runTeam(prompt, new Channel<OrchestrationEvent>(onEvent))),
  stopTeam: (): Promise<null> => call(commands.stopTeam()),
  // research mode
  /** Researches `question`; each stage and source arrives on `onEvent` as it happens. */
  runResearch: (question: string, sources: number | null, onEvent: (e: ResearchEvent) => void): Promise<ResearchReport> =>
    call(commands.runResearch(question, sources, new Channel<ResearchEvent>(onEvent))),
  stopResearch: (): Promise<null> => call(commands.stopResearch()),
  researchSettings: (): Promise<Full<ResearchSettingsView>> =>
    call(commands.researchSettings()) as Promise<Full<ResearchSettingsView>>,
  /** Saves the research settings; `key` is the chosen search API's key (to the keychain). */
  saveResearchSettings: (settings: Full<ResearchSettingsView>, key: string | null): Promise<Full<ResearchSettingsView>> =>
    call(commands.saveResearchSettings(settings, key)) as Promise<Full<ResearchSettingsView>>,
  /** Saves the last report into the workspace's Research folder; the path. */
  saveResearch: (format: ReportFormat): Promise<string> => call(commands.saveResearch(format)),
  // HTTP API
  serverStatus: (): Promise<Full<HttpApiStatus>> => call(commands.serverStatus()) as Promise<Full<HttpApiStatus>>,
  startServer: (): Promise<Full<HttpApiStatus>> => call(commands.startServer()) as Promise<Full<HttpApiStatus>>,
  stopServer: (): Promise<Full<HttpApiStatus>> => call(commands.stopServer()) as Promise<Full<HttpApiStatus>>,
  /** The app's own key for its HTTP API (kept in the keychain). */
  serverKey: (): Promise<string> => call(commands.serverKey()),
  saveServerSettings: (settings: ServerSettings): Promise<Full<HttpApiStatus>> =>
    call(commands.saveServerSettings(settings)) as Promise<Full<HttpApiStatus>>,
  // the desktop: tray, quick window, start at login
  desktopSettings: (): Promise<Full<DesktopStatus>> => call(commands.desktopSettings()) as Promise<Full<DesktopStatus>>,
  /** Saves them; a shortcut another application holds is refused (nothing saved). */
  saveDesktopSettings: (settings: Full<DesktopSettings>): Promise<Full<DesktopStatus>> =>
    call(commands.saveDesktopSettings(settings)) as Promise<Full<DesktopStatus>>,
  /** The language the app shows: the one chosen, else the system's (else English). */
  appLanguage: (): Promise<Language> => commands.appLanguage(),
  /** The app's language changed (Settings → Desktop, or the settings file). */
  onLanguageChanged: (cb: (language: Language) => void): Promise<UnlistenFn> =>
    events.languageChanged.listen((e) => cb(e.payload.language)),
  hideQuickWindow: (): Promise<null> => call(commands.hideQuickWindow()),
  showQuickWindow: (): Promise<null> => call(commands.showQuickWindow()),
  /** Moves the quick window's exchange (conversation `sessionId`) into the main window as a chat. */
  openInMainWindow: (sessionId: string): Promise<null> => call(commands.openInMainWindow(sessionId)),
  // voice
  voiceDevices: (): Promise<AudioDevices> => call(commands.voiceDevices()),
  voiceSettings: (): Promise<Full<VoiceSettingsView>> => call(commands.voiceSettings()) as Promise<Full<VoiceSettingsView>>,
  saveVoiceSettings: (settings: VoiceSettingsView): Promise<Full<VoiceSettingsView>> =>
    call(commands.saveVoiceSettings(settings)) as Promise<Full<VoiceSettingsView>>,
  /** Starts a conversation; its events arrive on `onEvent` until `stopped`. */
  /** A voice conversation: chat `sessionId` continued by voice, else a new one with `agent`. */
  voiceStart: (sessionId: string | null, agent: string | null, onEvent: (e: VoiceEvent) => void): Promise<VoiceStarted> =>
    call(commands.voiceStart(sessionId, agent, new Channel<VoiceEvent>(onEvent))),
  voiceTalk: (pressed: boolean): Promise<null> => call(commands.voiceTalk(pressed)),
  voiceStopSpeaking: (): Promise<null> => call(commands.voiceStopSpeaking()),
  voiceStop: (): Promise<null> => call(commands.voiceStop()),
  // events
  /** This window's pending files changed (each window has its own). */
  onAttachmentsChanged: (cb: (list: AttachmentView[]) => void): Promise<UnlistenFn> =>
    events.attachmentsChanged.listen((e) => {
      if (e.payload.pane === pane) cb(e.payload.attachments);
    }),
  /** The tray, the quick window or a second launch asks the main window for something. */
  onMainWindowRequest: (cb: (request: WindowRequest) => void): Promise<UnlistenFn> =>
    events.mainWindowRequest.listen((e) => cb(e.payload.request)),
  /** The quick window was shown (by the shortcut or the tray). */
  onQuickWindowShown: (cb: () => void): Promise<UnlistenFn> => events.quickWindowShown.listen(() => cb()),
  /** The push-to-talk conversation's events, for its overlay. */
  onTalkEvent: (cb: (e: TalkEvent) => void): Promise<UnlistenFn> => events.talkEvent.listen((e) => cb(e.payload)),
  onIndexProgress: (cb: (s: IndexStatus) => void): Promise<UnlistenFn> =>
    events.indexStatus.listen((e) => cb(e.payload)),
  /** The settings, agents or providers were changed outside the app (`baton config set`). */
  onSettingsChanged: (cb: (change: SettingsChanged) => void): Promise<UnlistenFn> =>
    events.settingsChanged.listen((e) => cb(e.payload)),
  /** A scheduled task ran (while the app is open). */
  onTaskRan: (cb: (ran: TaskRan) => void): Promise<UnlistenFn> =>
    events.taskRan.listen((e) => cb(e.payload)),
  /** Progress of the embedded model loading into memory (during its first answer). */
  onModelLoad: (cb: (load: ModelLoad) => void): Promise<UnlistenFn> =>
    events.modelLoad.listen((e) => cb(e.payload)),
};

export type Api = typeof api;
