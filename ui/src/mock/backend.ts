// A scripted fake of the Rust side, for the mock build and the browser tests.
import { emit } from '@tauri-apps/api/event';
import type {
  AgentInfo,
  AttachmentView,
  AudioDevices,
  BranchView,
  BrowserSettingsView,
  BrowserTest,
  MailSettingsView,
  MailTest,
  McpOverview,
  Memory,
  RunStatus,
  ScheduledTask,
  TaskRan,
  McpPromptView,
  NewMcpServer,
  NewProject,
  Project,
  OrchestrationEvent,
  OrchestrationResult,
  ReportFormat,
  ResearchEvent,
  ResearchReport,
  ResearchSettingsView,
  ChatEvent,
  Citation,
  DesktopSettings,
  DesktopStatus,
  IndexStatus,
  IpcError,
  KeyStatus,
  MessageView,
  ProviderInfo,
  RestoredFile,
  SendRequest,
  SessionSummary,
  SessionView,
  SettingsView,
  ToolCallView,
  TurnEnd,
  TurnResult,
  VoiceEvent,
  VoiceSettingsView,
  VoiceStarted,
  TurnTiming,
  ServerSettings,
  VoiceSettings,
  HttpApiStatus,
  ServerStatus,
  ModelsOverview,
  PulledModel,
} from '../lib/bindings';
import type { Full } from '../lib/api';
import { partialPercent, sizeMb } from '../lib/models';
import { markdownDoc, rng, tokenize } from './content';
import { pane } from '../lib/pane';
import { browserLanguage } from '../lib/i18n.svelte';

const MB = 1024 * 1024;

/**
 * One streamed step: its events after `delay` ms. With `confirm`, the turn
 * then waits (like the Rust side) until `answer_confirmation` or Stop answers
 * the request its events asked, plays the `allowed` or `denied` steps, and
 * goes on with the rest of the script. With `question`, it waits the same
 * way for `answer_question` (an answer, or `null`: declined) or Stop.
 */
type Step = {
  events: ChatEvent[];
  delay: number;
  confirm?: { id: string; allowed: Step[]; denied: Step[] };
  question?: { id: string; answered: (answer: string) => Step[]; declined: Step[] };
};
type Script = Iterable<Step>;

interface Session {
  id: string;
  title: string;
  updatedMs: number;
  messages: MessageView[];
  deleted: boolean;
  /** The named agent it talks to (`null`: the default). */
  agent: string | null;
  /** Its project's id (`null`: none). */
  project: string | null;
  /** The branches kept where an earlier user message was edited (the one in view is in `messages`). */
  forks: Fork[];
}

/** The branches at user message `at` (0: the first), as the engine keeps them. */
interface Fork {
  at: number;
  /** The branch in view (its slot is empty: its messages are the session's). */
  current: number;
  branches: Branch[];
}

/** One branch: its messages (its user message first) and the forks further down it. */
interface Branch {
  messages: MessageView[];
  forks: Fork[];
}

interface ChannelLike {
  id: number;
}

/** One scripted exchange of a voice conversation. */
export interface VoiceScript {
  partials: string[];
  transcript: string;
  /** Answer text pieces; `sentences[i]` is spoken after piece `sentenceAfter[i]`. */
  answer: string[];
  sentences: string[];
  sentenceAfter: number[];
  timing: TurnTiming | null;
}

interface VoiceRun {
  ch: ChannelLike;
  /** The session the spoken turns are kept in. */
  session: string;
  agent: string | null;
  index: number;
  pushToTalk: boolean;
  loud: boolean;
  held: boolean;
  stopSpeaking: boolean;
  answering: boolean;
  ended: boolean;
  timer: ReturnType<typeof setInterval>;
  partialTimer: ReturnType<typeof setInterval> | null;
}

const internals = () =>
  (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } }).__TAURI_INTERNALS__;

function ipcError(code: IpcError['code'], message: string, details: string | null = null): IpcError {
  return { code, message, details };
}

function mask(key: string): string {
  return key.length <= 6 ? '••••' : `${key.slice(0, 3)}…${key.slice(-4)}`;
}

export class MockBackend {
  calls: { cmd: string; args: unknown }[] = [];
  opened: string[] = [];
  providers: ProviderInfo[] = [
    { name: 'local', dialect: 'local', model: 'qwen2.5-1.5b-instruct-q4', endpoint: null, apiKeyEnv: null, interactionMode: 'CLI', ready: true, detail: 'model file present', keyMissing: false, custom: false, isDefault: true, selected: true },
    { name: 'openai', dialect: 'openai', model: 'gpt-4.1-mini', endpoint: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', interactionMode: 'API', ready: false, detail: 'no API key: run `baton secret set openai` or set OPENAI_API_KEY', keyMissing: true, custom: false, isDefault: false, selected: false },
    { name: 'anthropic', dialect: 'anthropic', model: 'claude-sonnet-4', endpoint: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY', interactionMode: 'API', ready: false, detail: 'no API key: run `baton secret set anthropic` or set ANTHROPIC_API_KEY', keyMissing: true, custom: false, isDefault: false, selected: false },
    { name: 'my-ollama', dialect: 'ollama', model: 'llama3.1:8b', endpoint: 'http://localhost:11434', apiKeyEnv: null, interactionMode: 'API', ready: true, detail: 'server answering', keyMissing: false, custom: true, isDefault: false, selected: false },
  ];
  keys = new Map<string, string>();
  settings: SettingsView = {
    provider: null,
    workspace: '/home/ada/Documents/baton-workspace',
    interactionMode: null,
    anonymize: false,
    anonymizeTerms: [],
    attachmentContextChars: 60000,
    skipIndexingOnStartup: false,
    memory: true,
    ocrProvider: null,
  };
  /** Where conversations were exported to. */
  exported: { dir: string; format: string; session: string | null; project: string | null }[] = [];
  /** What Baton remembers (Settings → Memory). */
  memories: Memory[] = [
    { id: 'm1a2b3c4d', text: 'Prefers metric units', source: 'chat', session: 's2', created: 1764950400 },
    { id: 'm5e6f7a8b', text: 'The invoice folder is /Finance/Invoices', source: 'user', created: 1765036800 },
  ];
  sessions = new Map<string, Session>();
  /** The scheduled tasks (Settings → Scheduled tasks). */
  tasks: ScheduledTask[] = [];
  private taskSeq = 0;
  /** What `run_task` answers next (its status and summary). */
  nextTaskRun: { status: RunStatus; summary: string } = {
    status: 'answered',
    summary: 'Two ships came in; the ferry is late.',
  };
  /** The projects (Settings → Projects, the sidebar's groups); none at first. */
  projects: Project[] = [];
  private projectSeq = 0;
  /** The named agents (as `agents.json` ships them). */
  agents: AgentInfo[] = [
    {
      name: 'assistant',
      description: 'The everyday assistant: answers questions and works with the files and documents in your workspace.',
      specialisations: ['general', 'files', 'documents', 'summaries'],
      provider: 'local',
      model: 'qwen2.5-1.5b-instruct-q4',
      toolboxes: [{ name: 'FileTool', tools: ['list_directory', 'read_text_file', 'write_text_file', 'move_file', 'search'] }],
      delegable: false,
      delegates: true,
      maxMessages: null,
      maxIterations: null,
      tokenBudget: null,
      default: true,
      problem: null,
    },
    {
      name: 'researcher',
      description: 'Finds and reads documents in the workspace and reports what they say, citing the files; never changes a file.',
      specialisations: ['research', 'reading', 'search'],
      provider: 'local',
      model: 'qwen2.5-1.5b-instruct-q4',
      toolboxes: [{ name: 'FileTool', tools: ['list_directory', 'read_text_file', 'search'] }],
      delegable: true,
      delegates: true,
      maxMessages: null,
      maxIterations: 20,
      tokenBudget: null,
      default: false,
      problem: null,
    },
  ];
  attachments: AttachmentView[] = [];
  index: IndexStatus = { workspace: this.settings.workspace, state: 'idle', documents: 128, done: 0, total: 0, error: null };
  nextScript: Script | null = null;
  /** Time between streamed steps (ms). */
  pace = 25;
  /**
   * How long the embedded model takes to "load" (ms) before the first answer
   * with a `local` provider, sending `model-load` events 0→100. Off (0) by
   * default, so other tests (the default provider is `local`) are not slowed;
   * `simulateModelLoad()` turns it on.
   */
  modelLoadMs = 0;
  /** `model-load` events sent, in order (for tests). */
  modelLoads: { provider: string; percent: number }[] = [];
  // --------------------------------------------------------------- browser
  browser: Full<BrowserSettingsView> = {
    mode: null,
    path: null,
    userDataDir: null,
    searchUrl: null,
    allowedSites: [],
    blockedSites: [],
    allowOtherSchemes: false,
    browsers: [
      {
        name: 'Microsoft Edge',
        program: '/opt/microsoft/msedge/msedge',
        attachReady: false,
        attachStatus:
          'Microsoft Edge does not allow remote debugging yet. Once: open edge://inspect in Microsoft Edge, turn on "Allow remote debugging for this browser instance", and keep Microsoft Edge open; Baton then attaches to it (it asks you to allow the connection the first time).',
        inspectPage: 'edge://inspect',
      },
    ],
  };
  // ------------------------------------------------------------------ mail
  mail: Full<MailSettingsView> = {
    address: null,
    name: null,
    confirmSend: true,
    imap: { host: null, port: null, username: null, tls: 'tls', auth: 'password', caFile: null, passwordSet: false },
    smtp: { host: null, port: null, username: null, tls: 'tls', auth: 'password', caFile: null, passwordSet: false },
  };
  /** The passwords "in the keychain" (never sent back to the UI). */
  mailPasswords: { imap?: string; smtp?: string } = {};
  /** What test_mail answers next. */
  mailTest: MailTest = {
    imap: { ok: true, message: 'Signed in; 5 folders.' },
    smtp: { ok: false, message: 'the smtp server refused the sign-in of `ana@example.org`: permanent error (535): 5.7.8 Error: authentication failed' },
  };
  // ----------------------------------------------------- local models
  /** What the first run picked (shown while no provider is chosen). */
  firstRun = {
    provider: 'local',
    reason: 'embedded' as const,
    why: 'no API key, model server or downloaded model was found, and the embedded model is small: its answers are basic',
  };
  /** The Models page; `pullStepMs` paces each 10% of a mock download. */
  models: ModelsOverview = {
    ramMb: 16384, cores: 8, gpu: null, selectedProvider: 'local', firstRun: null,
    localServers: [{ kind: 'ollama', endpoint: 'http://127.0.0.1:11434', providers: ['ollama-llama3.2:latest'] }],
    models: [
      {
        name: 'qwen2.5-1.5b', title: 'Qwen2.5 1.5B Instruct', file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf', url: 'https://huggingface.co/Qwen/qwen2.5-1.5b.gguf',
        size: 1066 * MB, sha256: 'a'.repeat(64), sha256Source: 'huggingface', licence: 'Apache-2.0', contextLength: 32768, parameters: '1.5 B',
        ramMb: 1800, tasks: ['chat', 'tools'], notes: 'The best small all-rounder for laptops.', pulled: false,
        partialBytes: null, fit: 'comfortable', hint: 'fits this computer: 1.8 GB of 16.0 GB memory, on 8 cores',
      },
      {
        name: 'qwen2.5-7b', title: 'Qwen2.5 7B Instruct', file: 'qwen2.5-7b-instruct-q4_k_m.gguf', url: 'https://huggingface.co/Qwen/qwen2.5-7b.gguf',
        size: 4466 * MB, sha256: 'b'.repeat(64), sha256Source: 'huggingface', licence: 'Apache-2.0', contextLength: 32768, parameters: '7.6 B',
        ramMb: 6000, tasks: ['chat', 'tools'], notes: 'Strong answers; wants 8 GB of memory or a GPU.', pulled: false,
        partialBytes: Math.ceil(4466 * MB * 0.37), fit: 'comfortable', hint: 'fits this computer: 5.9 GB of 16.0 GB memory, on 8 cores',
      },
      {
        name: 'big-one', title: 'Big One 70B', file: 'big-one-70b.gguf', url: 'https://example.org/big-one-70b.gguf',
        size: 40000 * MB, sha256: null, sha256Source: null, licence: 'MIT', contextLength: 131072, parameters: '70 B',
        ramMb: 48000, tasks: ['chat'], notes: '', pulled: false,
        partialBytes: null, fit: 'tooBig', hint: 'too big: needs 46.9 GB, this computer has 16.0 GB',
      },
    ],
  };
  pullStepMs = 80;
  /** A download fails with this (then it is cleared). */
  pullError: IpcError | null = null;
  private pulls = new Set<string>();

  private modelsView(): ModelsOverview {
    return structuredClone({ ...this.models, selectedProvider: this.current().name });
  }

  private async pullModel(name: string, ch: ChannelLike): Promise<PulledModel> {
    const m = this.models.models.find((x) => x.name === name);
    if (!m) throw ipcError('not_found', `no model named \`${name}\` in the catalog`);
    this.pulls.add(name);
    const total = sizeMb(m) * 1024;
    let index = 0;
    for (let step = Math.floor((partialPercent(m) ?? 0) / 10); step <= 10; step++) {
      if (!this.pulls.has(name)) {
        m.partialBytes = Math.round((m.size * step) / 10);
        throw ipcError('download', `the download of ${name} was stopped at ${Math.round((sizeMb(m) * step) / 10)} MB; run it again to resume`);
      }
      internals().runCallback(ch.id, { index: index++, message: { received: Math.round((total * step) / 10) * 1024, total: total * 1024, resumedFrom: 0 } });
      await sleep(this.pullStepMs);
    }
    internals().runCallback(ch.id, { index: index++, end: true });
    this.pulls.delete(name);
    if (this.pullError) {
      const e = this.pullError;
      this.pullError = null;
      m.partialBytes = null;
      throw e;
    }
    m.pulled = true;
    m.partialBytes = null;
    this.providers = [...this.providers, { name, dialect: 'local', model: m.title, endpoint: null, apiKeyEnv: null, interactionMode: 'CLI', ready: true, detail: 'model file present', keyMissing: false, custom: true, isDefault: false, selected: false }];
    return { provider: name, path: `/home/user/.local/share/baton/models/${m.file}`, sha256: m.sha256 ?? 'c'.repeat(64), downloaded: true, resumedFrom: 0, hashRecorded: m.sha256 === null };
  }

  // ----------------------------------------------------- plugins & MCP
  mcp: McpOverview = {
    servers: [
      {
        name: 'Words', source: { kind: 'plugin', dir: '/home/ada/.local/share/baton/Tools/Words' }, description: 'Counts and reverses words.',
        target: '/usr/bin/python3 server.py', state: 'running', tools: ['count_words', 'reverse_words'], problem: null, trust: 'untrusted',
      },
      {
        name: 'weather', source: { kind: 'mcpJson' }, description: null, target: 'npx -y weather-mcp',
        state: 'failed', tools: [], problem: 'the MCP server `weather` did not start: connection closed: initialize response', trust: 'untrusted',
      },
    ],
    problems: ['/home/ada/.local/share/baton/Tools/Broken/plugin.json cannot be used: EOF while parsing an object at line 1 column 12'],
    pluginsDir: '/home/ada/.local/share/baton/Tools',
    mcpFile: '/home/ada/.config/baton/mcp.json',
  };
  mcpPrompts: McpPromptView[] = [
    { server: 'everything', name: 'args-prompt', description: 'A prompt with two arguments, one required and one optional', arguments: ['city', 'state'], command: '/prompt everything:args-prompt city= state=' },
    { server: 'everything', name: 'simple-prompt', description: 'A prompt with no arguments', arguments: [], command: '/prompt everything:simple-prompt' },
  ];
  // ---------------------------------------------------------- HTTP API
  server: Full<HttpApiStatus> = {
    settings: { startWithApp: false, host: '127.0.0.1', port: 8080, sessions: 'memory', sessionTtlDays: 30, hostNames: [] },
    url: null,
    keysRequired: false,
    keys: 0,
    error: null,
  };
  /** The port something else already listens on (start fails there). */
  takenPort = 8081;
  /** Settings → Desktop as the Rust side reports it. */
  desktop: Full<DesktopStatus> = {
    settings: {
      closeToTray: true,
      startAtLogin: false,
      quickShortcut: 'CommandOrControl+Shift+Space',
      talkShortcut: 'CommandOrControl+Alt+Space',
      notifications: true,
      language: null,
      talkMode: 'answer',
    },
    shortcutError: null,
    talkShortcutError: null,
    tray: true,
    systemLanguage: browserLanguage(),
  };
  /** A shortcut another application holds (the save is refused). */
  takenShortcut = 'Ctrl+Alt+T';
  /** What the quick window asked: hidden, shown, moved into the main window. */
  quick = { hidden: 0, shown: 0, movedToMain: [] as string[] };
  /** The app's key for its HTTP API. */
  serverKey = 'bk-mock0desktop0key0000000000000000000000000000000000000000000000';
  /** What test_browser answers next. */
  browserTest: BrowserTest = { ok: true, mode: 'profile', message: 'Connected to Chrome/131.0.6778.85.' };
  // ----------------------------------------------------------------- voice
  voice: Full<VoiceSettings> = {
    threads: null,
    beamSize: 1,
    partialEveryMs: 1000,
    speculateAfterMs: 300,
    pushToTalk: false,
    inputDevice: null,
    outputDevice: null,
    ttsEngine: 'auto',
    ttsVoice: null,
    ttsRate: 175,
    sttModel: null,
    endSilenceMs: 700,
    language: 'en',
    echoCancellation: true,
    noiseSuppression: false,
  };
  voiceEngines = ['auto', 'espeak', 'piper', 'openai'];
  voiceModels = ['ggml-base.en-q5_0.bin', 'ggml-tiny.en.bin', 'ggml-base-q8_0.bin'];
  /** A few of Whisper's languages (the Rust side lists all 99). */
  voiceLanguages: [string, string][] = [['auto', 'Detect the language'], ['en', 'English'], ['de', 'German'], ['fr', 'French'], ['es', 'Spanish']];
  audioDevices: AudioDevices = {
    inputs: [
      { id: 'alsa_input.pci-0000_00_1f.3.analog-stereo', name: 'Built-in Audio Analog Stereo', isDefault: true },
      { id: 'alsa_input.usb-Jabra_Evolve2', name: 'Jabra Evolve2 65', isDefault: false },
    ],
    outputs: [
      { id: 'alsa_output.pci-0000_00_1f.3.analog-stereo', name: 'Built-in Audio Analog Stereo', isDefault: true },
      { id: 'alsa_output.usb-Jabra_Evolve2', name: 'Jabra Evolve2 65', isDefault: false },
    ],
    error: null,
  };
  /** The next `voice_start` fails with this (then it is cleared). */
  voiceStartError: IpcError | null = null;
  /** Hands-free: the scripted exchange starts this long after `voice_start` (ms; <0: never by itself). */
  voiceAutoMs = 500;
  /** Time between partials and between answer pieces (ms). */
  voiceStepMs = 150;
  /** How long each sentence is "spoken" (ms). */
  voiceSentenceMs = 1500;
  voiceScript: VoiceScript = {
    partials: ['What is', 'What is the weather', 'What is the weather in Lisbon'],
    transcript: 'What is the weather in Lisbon today?',
    answer: ['It is sunny ', 'and 24 degrees in Lisbon. ', 'A good day ', 'for a walk by the river.'],
    sentences: ['It is sunny and 24 degrees in Lisbon.', 'A good day for a walk by the river.'],
    sentenceAfter: [1, 3],
    timing: { vadTailMs: 700, sttMs: 95, firstSentenceMs: 310, ttsMs: 38, firstAudioMs: 1143 },
  };
  /** How many backups each workspace file has (`restore_backup`). */
  backups = new Map<string, number>();
  /** The next `restore_backup` fails with this (then it is cleared). */
  restoreError: IpcError | null = null;
  /** How long a restore takes (ms). */
  restoreMs = 150;
  /** Voice events sent, in order (levels left out), for tests. */
  voiceEvents: VoiceEvent[] = [];
  private voiceRun: VoiceRun | null = null;
  private loadedModels = new Set<string>();
  /** The turns in flight, by conversation (several at once, one each). */
  private active = new Map<string, ActiveTurn>();
  private seq = 1;
  private attSeq = 1;
  private confirmSeq = 1;

  constructor() {
    const now = Date.now();
    this.addSession('Rust ownership basics', now - 3_600_000, [
      { role: 'user', text: 'Explain ownership in Rust in two sentences.', toolCalls: [], attachments: [], spoken: null, citations: [], branch: null },
      {
        role: 'assistant',
        text: 'Every value in Rust has a single **owner**; when the owner goes out of scope the value is dropped.\n\nBorrowing (`&T`, `&mut T`) lets code use a value without taking ownership.\n\n```rust\nfn len(s: &String) -> usize { s.len() }\n```',
        toolCalls: [],
        attachments: [],
        spoken: null,
        citations: [],
        branch: null,
      },
    ]);
    this.addSession('Trip planning: Lisbon', now - 86_400_000, [
      { role: 'user', text: 'Find the notes about my Lisbon trip.', toolCalls: [], attachments: ['itinerary.pdf'], spoken: null, citations: [], branch: null },
      {
        role: 'assistant',
        text: 'Here is what I found in your workspace:\n\n| Day | Plan |\n|---|---|\n| 1 | Alfama walk |\n| 2 | Sintra |\n| 3 | Belém |',
        toolCalls: [
          { id: 'c1', name: 'workspace.search', arguments: '{"query":"Lisbon trip"}', result: '{"hits":3}', isError: false },
        ],
        attachments: [],
        spoken: null,
        citations: [],
        branch: null,
      },
    ], 'researcher');
  }

  private sortedProjects(): Project[] {
    return [...this.projects].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  }

  private projectId(): string {
    this.projectSeq++;
    return `p${(0x3f9a02c0 + this.projectSeq * 0x1111).toString(16).padStart(8, '0').slice(-8)}`;
  }

  /** Project `id`, or the engine's error. */
  private project(id: string): Project {
    const p = this.projects.find((x) => x.id === id);
    if (!p) throw ipcError('not_found', `there is no project named '${id}' (\`baton projects list\` shows them)`);
    return p;
  }

  /** A new or changed project as the engine keeps it, or its error (project `self` may keep its own name). */
  private checkProject(p: NewProject, self: string | null): Omit<Project, 'id' | 'created'> {
    const name = p.name.trim();
    if ([...name].length < 1 || [...name].length > 60) throw ipcError('invalid_input', `a project's name must be 1 to 60 characters, not '${p.name}'`);
    if (this.projects.some((x) => x.id !== self && x.name.toLowerCase() === name.toLowerCase())) {
      throw ipcError('invalid_input', `a project named '${name}' already exists`);
    }
    const folder = p.folder.trim();
    if (!/^(\/|[A-Za-z]:[\\/])/.test(folder)) throw ipcError('invalid_input', `a project's folder must be an absolute path, not '${p.folder}'`);
    const agent = p.agent?.trim() || null;
    if (agent !== null && !this.agents.some((a) => a.name === agent)) throw ipcError('not_found', `agent \`${agent}\`: no such agent`);
    const out: Omit<Project, 'id' | 'created'> = { name, folder };
    const instructions = (p.instructions ?? '').trim();
    if (instructions) out.instructions = instructions;
    if (agent) out.agent = agent;
    const provider = p.provider?.trim() || null;
    if (provider) out.provider = provider;
    return out;
  }

  /** Project "Harbour" (`p0000beef`) with the Lisbon chat in it. */
  addDemoProject(): void {
    this.projects.push({ id: 'p0000beef', name: 'Harbour', folder: '/srv/harbour', created: 1765000000 });
    const lisbon = this.sessions.get('s2');
    if (lisbon) lisbon.project = 'p0000beef';
  }

  /** `add_task`: the engine's checks in short (a prompt, a time it reads). */
  addTask(prompt: string, when: string, agent: string | null, email: boolean): ScheduledTask[] {
    if (!prompt.trim()) throw ipcError('invalid_input', 'a scheduled task needs a prompt: what Baton should do');
    const inHours = /^in (\d+) hours?$/.exec(when.trim());
    const repeat = /^every /.test(when.trim()) || /^[\d*]/.test(when.trim());
    if (!inHours && !repeat) {
      throw ipcError('invalid_input', `“${when}” is not a time Baton understands; write for example “every weekday at 8:00”, “in 2 hours” or a cron pattern such as “0 8 * * 1-5”`);
    }
    const next = inHours ? new Date(Date.now() + Number(inHours[1]) * 3_600_000) : new Date(Date.now() + 86_400_000);
    const id = `t${(0x20000000 + ++this.taskSeq * 7919).toString(16)}`;
    this.tasks.push({
      id,
      prompt: prompt.trim(),
      when: when.trim(),
      schedule: inHours ? { kind: 'once', at: next.toISOString() } : { kind: 'repeat', cron: '0 8 * * 1-5', zone: 'Europe/Warsaw' },
      agent,
      notify: true,
      email,
      created: new Date().toISOString(),
      nextRun: next.toISOString(),
      runs: [],
    });
    return structuredClone(this.tasks);
  }

  /** A run the app's scheduler makes: as `run_task`, and the window is told (`task-ran`). */
  async scheduledRun(id: string): Promise<TaskRan> {
    const ran = this.runTask(id);
    await emit('task-ran', ran);
    return ran;
  }

  /** `run_task`: the answer kept in the task's chat, the run in its history. */
  runTask(id: string): TaskRan {
    const task = this.tasks.find((t) => t.id === id);
    if (!task) throw ipcError('not_found', `no scheduled task has the id ${id} (\`baton schedule list\` shows them)`);
    const { status, summary } = this.nextTaskRun;
    task.runs = [...(task.runs ?? []), { started: new Date().toISOString(), elapsedMs: 420, status, summary, tokens: 31 }];
    if (task.schedule.kind === 'once') task.nextRun = null;
    const session = `scheduled-${id}`;
    const messages: MessageView[] = [
      { role: 'user', text: task.prompt, toolCalls: [], attachments: [], spoken: null, citations: [], branch: null },
      { role: 'assistant', text: summary, toolCalls: [], attachments: [], spoken: null, citations: [], branch: null },
    ];
    const old = this.sessions.get(session);
    this.sessions.set(session, { id: session, title: task.prompt, updatedMs: Date.now(), messages: [...(old?.messages ?? []), ...messages], deleted: false, agent: task.agent ?? null, project: null, forks: [] });
    return { taskId: id, prompt: task.prompt, status, summary, session, nextRun: task.nextRun ?? null };
  }

  addSession(title: string, updatedMs: number, messages: MessageView[], agent: string | null = null): string {
    const id = `s${this.seq++}`;
    this.sessions.set(id, { id, title, updatedMs, messages, deleted: false, agent, project: null, forks: [] });
    return id;
  }

  /** A long conversation (for scrolling tests). */
  addBigSession(n: number, title = 'A very long conversation'): string {
    const r = rng(42);
    const messages: MessageView[] = [];
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) {
        messages.push({ role: 'user', text: `Question ${i / 2 + 1}: how does part ${i} of the index work?`, toolCalls: [], attachments: [], spoken: null, citations: [], branch: null });
      } else {
        const tools: ToolCallView[] = i % 7 === 1 ? [{ id: `t${i}`, name: 'workspace.search', arguments: `{"query":"part ${i}"}`, result: '{"hits":2}', isError: false }] : [];
        messages.push({ role: 'assistant', text: markdownDoc(40 + Math.floor(r() * 120), i), toolCalls: tools, attachments: [], spoken: null, citations: [], branch: null });
      }
    }
    return this.addSession(title, Date.now(), messages);
  }

  /** Session `s` as the chat shows it: its user messages say which branch is in view, of how many. */
  sessionView(s: Session): SessionView {
    let asked = 0;
    const messages = s.messages.map((m) => ({ ...m, branch: m.role === 'user' ? branchOf(s.forks, asked++) : null }));
    return { id: s.id, title: s.title, agent: s.agent, project: s.project, messages };
  }

  summary(s: Session): SessionSummary {
    const voiceTurns = s.messages.filter((m) => m.spoken !== null).length;
    return { id: s.id, title: s.title, updatedMs: s.updatedMs, messageCount: s.messages.length, agent: s.agent, voiceTurns, project: s.project };
  }

  /** Sends event `name` as the Rust side would (tests: the tray's and the quick window's requests). */
  async emitEvent(name: string, payload: unknown): Promise<void> {
    await emit(name, payload);
  }

  async emitAttachments(list?: AttachmentView[]): Promise<void> {
    if (list) this.attachments = list;
    await emit('attachments-changed', { pane, attachments: this.attachments });
  }

  async emitIndex(status: Partial<IndexStatus>): Promise<void> {
    this.index = { ...this.index, ...status };
    await emit('index-status', this.index);
  }

  async emitModelLoad(provider: string, percent: number): Promise<void> {
    this.modelLoads.push({ provider, percent });
    await emit('model-load', { provider, percent });
  }

  /** Like `baton config set` in a terminal: the settings change outside the app, which is told. */
  async changeSettingsElsewhere(patch: Partial<SettingsView>): Promise<void> {
    this.settings = { ...this.settings, ...patch };
    await emit('settings-changed', { workspaceMoved: patch.workspace !== undefined });
  }

  /** The embedded model is unloaded: the next answer with a `local` provider loads it over `ms`. */
  simulateModelLoad(ms = 600): void {
    this.modelLoadMs = ms;
    this.loadedModels.clear();
  }

  /** Loads the selected provider's embedded model if it is not in memory yet. */
  private async loadModel(): Promise<void> {
    const p = this.current();
    if (p.dialect !== 'local' || this.modelLoadMs <= 0 || this.loadedModels.has(p.name)) return;
    const steps = 12;
    // Fractional percents, like the Rust side's f32.
    for (let i = 0; i <= steps; i++) {
      if (i > 0) await sleep(this.modelLoadMs / steps);
      await this.emitModelLoad(p.name, i === steps ? 100 : (i * 100) / steps);
    }
    this.loadedModels.add(p.name);
  }

  /** The next reply streams `n` tokens of mixed Markdown in deltas of 1–3 tokens. */
  streamTokens(n: number, opts: { perStep?: number; pace?: number } = {}): void {
    const toks = tokenize(markdownDoc(n, 11)).slice(0, n);
    const perStep = opts.perStep ?? 4;
    if (opts.pace !== undefined) this.pace = opts.pace;
    const r = rng(5);
    const pace = () => this.pace;
    this.nextScript = (function* () {
      yield { events: [{ type: 'usage', inputTokens: 812, outputTokens: 0 } as ChatEvent], delay: 10 };
      let i = 0;
      while (i < toks.length) {
        const events: ChatEvent[] = [];
        for (let k = 0; k < perStep && i < toks.length; k++) {
          const take = 1 + Math.floor(r() * 3);
          events.push({ type: 'textDelta', text: toks.slice(i, i + take).join('') });
          i += take;
        }
        yield { events, delay: pace() };
      }
    })();
  }

  /**
   * The next reply calls an external tool: it asks for confirmation with
   * these exact arguments and waits; allowed, the tool runs and `text`
   * follows; not allowed, the refusal is the result and `deniedText` follows.
   */
  confirmNext(opts: { tool?: string; arguments?: string; action?: string; text?: string; deniedText?: string; notice?: string } = {}): void {
    const tool = opts.tool ?? 'Mail.send_mail';
    const name = tool.split('.').pop() ?? tool;
    const args = opts.arguments ?? '{\n  "to": "ada@example.com",\n  "subject": "Lunch",\n  "body": "Lunch moved to 1 pm."\n}';
    const id = `confirm_${this.confirmSeq++}`;
    const call = `call-${id}`;
    const steps: Step[] = [];
    if (opts.notice) steps.push({ events: [{ type: 'notice', message: opts.notice }], delay: 20 });
    steps.push({
      events: [
        { type: 'toolStarted', id: call, name, arguments: args },
        { type: 'confirmationRequested', id, tool, arguments: args, action: opts.action ?? null },
      ],
      delay: 60,
      confirm: {
        id,
        // The action runs (or not), then the model answers.
        allowed: textScript(opts.text ?? 'Done: I sent the mail.', [], this.pace, [
          { type: 'toolFinished', id: call, name, result: '{\n  "status": 200\n}', isError: false, durationMs: 142 },
        ]),
        denied: textScript(opts.deniedText ?? 'All right, I did not send it.', [], this.pace, [
          { type: 'toolFinished', id: call, name, result: `"the user declined \`${tool}\`: it was not run."`, isError: true, durationMs: 0 },
        ]),
      },
    });
    this.nextScript = steps;
  }

  /**
   * The next reply delegates `task` to a subagent that asks `question` and
   * waits for the user: answered, the subagent goes on and the parent's
   * `text(answer)` follows; declined, the parent gets the question and
   * answers `declinedText`.
   */
  askNext(opts: { task?: string; question?: string; text?: (answer: string) => string; declinedText?: string } = {}): void {
    const task = opts.task ?? 'Book a table for dinner on Friday';
    const question = opts.question ?? 'For how many people should I book?';
    const id = `sub_${this.confirmSeq++}`;
    const call = `call-${id}`;
    const args = JSON.stringify({ task, agent: 'FileTool' }, null, 2);
    const text = opts.text ?? ((a: string) => `I booked a table on Friday at 8 pm for: ${a}.`);
    this.nextScript = [
      { events: [{ type: 'toolStarted', id: call, name: 'launch_subagent', arguments: args }], delay: 20 },
      { events: [{ type: 'subagentDelegated', sessionId: id, task }], delay: 20 },
      {
        events: [{ type: 'subagentAsked', sessionId: id, question }],
        delay: 20,
        question: {
          id,
          answered: (answer) =>
            textScript(text(answer), [], this.pace, [
              { type: 'subagentAnswered', sessionId: id, answer },
              { type: 'subagentFinished', sessionId: id, answered: true, elapsedMs: 1200 },
              { type: 'toolFinished', id: call, name: 'launch_subagent', result: JSON.stringify({ done: true, result: 'Booked.', sessionId: id }, null, 2), isError: false, durationMs: 930 },
            ]),
          declined: textScript(opts.declinedText ?? 'The restaurant needs a number: for how many people should I book?', [], this.pace, [
            { type: 'toolFinished', id: call, name: 'launch_subagent', result: JSON.stringify({ done: true, question, sessionId: id }, null, 2), isError: false, durationMs: 410 },
          ]),
        },
      },
    ];
  }

  /**
   * The next reply edits a workbook (a preview of the changed range, not
   * saved yet), then (unless `save` is false) saves it over the file, which
   * had `backups` backups already: the save's result names the new one
   * (`restore_backup`).
   */
  sheetEditNext(opts: { path?: string; backups?: number; save?: boolean; text?: string } = {}): void {
    const path = opts.path ?? '/budget.xlsx';
    const save = opts.save ?? true;
    const n = (opts.backups ?? 0) + (save ? 1 : 0);
    this.backups.set(path, n);
    const backup = backupName(path, n);
    const values = [
      ['Shipping', 'Tax', 'Total'],
      [4.5, 0.9, '=B2+F2+G2'],
      [3, 0.6, '=B3+F3+G3'],
      [12, 2.4, '=B4+F4+G4'],
    ];
    const json = (v: unknown) => JSON.stringify(v, null, 2);
    const name = path.split('/').pop();
    const id = this.confirmSeq++;
    const events: ChatEvent[] = [
      { type: 'toolStarted', id: `call-sheet-${id}`, name: 'set_range_values', arguments: json({ path, sheet: 'Sales', start: 'F1', values }) },
      { type: 'toolFinished', id: `call-sheet-${id}`, name: 'set_range_values', result: json({ path, sheet: 'Sales', changed: 'F1:H4', preview: values, saved: false }), isError: false, durationMs: 38 },
    ];
    if (save) {
      events.push(
        { type: 'toolStarted', id: `call-save-${id}`, name: 'save', arguments: json({ path }) },
        { type: 'toolFinished', id: `call-save-${id}`, name: 'save', result: json({ path, format: 'xlsx', bytes: 11520, backup }), isError: false, durationMs: 121 },
      );
    }
    const text = save
      ? `I added **Shipping**, **Tax** and **Total** columns to the Sales sheet and saved ${name}; the version before is kept as ${backupName(name ?? path, n)}.`
      : `I added **Shipping**, **Tax** and **Total** columns to the Sales sheet; say so and I will save ${name}.`;
    this.nextScript = textScript(opts.text ?? text, events, this.pace);
  }

  /** The next reply streams this text (in small deltas), with optional extra events first. */
  replyWith(text: string, before: ChatEvent[] = []): void {
    this.nextScript = textScript(text, before, this.pace);
  }

  private scriptFor(req: SendRequest): Script {
    if (this.nextScript) {
      const s = this.nextScript;
      this.nextScript = null;
      return s;
    }
    const t = req.text.trim();
    if (t.startsWith('/')) {
      const reply = t === '/help' ? 'Commands:\n  /help        this list\n  /model NAME  switch the model\n  /clear       start over' : `Ran ${t.split(' ')[0]}.`;
      return [{ events: [{ type: 'commandReply', text: reply }], delay: 5 }];
    }
    if (/tool/i.test(t)) {
      return textScript('I searched your workspace and found **3** matching notes.', [
        { type: 'toolStarted', id: 'call-1', name: 'workspace.search', arguments: '{"query":"lisbon","limit":5}' },
      ], this.pace, [{ type: 'toolFinished', id: 'call-1', name: 'workspace.search', result: '{"hits":[{"path":"notes/lisbon.md","score":0.92}]}', isError: false, durationMs: 184 }]);
    }
    if (/\bremember\b/i.test(t)) {
      const kept = { id: 'm0badc0de', text: 'Prefers metric units', source: 'chat' as const, created: 1765000000 };
      this.memories.push(kept);
      return textScript('I will remember that.', [
        { type: 'toolStarted', id: 'call-1', name: 'remember', arguments: '{"fact":"Prefers metric units"}' },
      ], this.pace, [{ type: 'toolFinished', id: 'call-1', name: 'remember', result: JSON.stringify({ id: kept.id, text: kept.text }), isError: false, durationMs: 3 }]);
    }
    if (/\bpilots?\b/i.test(t)) {
      const passage = 'Pilotage fees for March came to 4,200 EUR, paid to the harbour authority.';
      return [
        ...textScript('The harbour pilots were paid 4,200 EUR in March [1]. The tugs cost more [4].', [
          { type: 'toolStarted', id: 'call-1', name: 'search_documents', arguments: '{"query":"harbour pilots pay"}' },
        ], this.pace, [{ type: 'toolFinished', id: 'call-1', name: 'search_documents', result: `[{"source":1,"path":"/harbour.pdf","location":"page 3 · Costs","snippet":"${passage}"}]`, isError: false, durationMs: 42 }]),
        {
          events: [{
            type: 'cited',
            citations: [{ number: 1, path: '/harbour.pdf', location: 'page 3 · Costs', passage, offset: 1200 }],
            dropped: 1,
            answer: 'The harbour pilots were paid 4,200 EUR in March [1]. The tugs cost more.',
          }],
          delay: 10,
        },
      ];
    }
    if (/\b(spreadsheet|workbook|budget)\b/i.test(t)) {
      this.sheetEditNext();
      return this.scriptFor(req);
    }
    if (/\bask\b/i.test(t)) {
      this.askNext();
      return this.scriptFor(req);
    }
    if (/\bfail\b/i.test(t)) {
      return [{ events: [{ type: 'textDelta', text: 'Let me try… ' }, { type: 'error', message: 'The provider did not answer within 60 s.' }], delay: 20 }];
    }
    if (/\bxss\b/i.test(t)) {
      return textScript(
        'Here you go: <img src=x onerror="window.__xss=1"> and <script>window.__xss=2</script>\n\n' +
          '[click me](javascript:window.__xss=3) <iframe src="javascript:window.__xss=4"></iframe>\n\n' +
          '![remote](https://example.com/tracker.png) <a href="#" onclick="window.__xss=5">x</a> done.\n',
        [],
        this.pace,
      );
    }
    return textScript(
      `You said: *${t.slice(0, 80)}*\n\n## Summary\n\nHere is a short answer with a list:\n\n- first point\n- second point with \`code\`\n\n` +
        '```python\nprint("hello from Baton")\n```\n\n| Key | Value |\n|---|---|\n| a | 1 |\n\nSee [the docs](https://example.com/docs).\n',
      [],
      this.pace,
    );
  }

  async handle(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    const logged: Record<string, unknown> = { ...args };
    delete logged.onEvent;
    this.calls.push({ cmd, args: logged });
    switch (cmd) {
      case 'send_message':
        return this.send(args.request as SendRequest, args.onEvent as ChannelLike);
      case 'regenerate': {
        const s = this.sessions.get(args.sessionId as string);
        if (!s) throw ipcError('not_found', 'That chat no longer exists.');
        if (s.messages.at(-1)?.role === 'assistant') s.messages.pop();
        return this.run(s, this.scriptFor({ sessionId: s.id, text: 'again', attachmentIds: [], replaceLast: false }), args.onEvent as ChannelLike);
      }
      case 'stop_generation': {
        const t = this.active.get(args.sessionId as string);
        if (!t) return false;
        t.stop = true;
        // Stop answers a pending confirmation too (the action does not run),
        // and ends the wait for a subagent's answer.
        t.waiting?.answer(false);
        t.asking?.answer(null);
        return true;
      }
      case 'answer_confirmation': {
        const w = [...this.active.values()].map((t) => t.waiting).find((w) => w?.id === args.id);
        if (!w) return false;
        w.answer(args.approved as boolean);
        return true;
      }
      case 'answer_question': {
        const q = [...this.active.values()].map((t) => t.asking).find((q) => q?.id === args.questionId);
        if (!q) throw ipcError('not_found', 'that question is no longer waiting for an answer');
        const a = args.answer as string | null;
        if (a !== null && !a.trim()) throw ipcError('invalid_input', 'the answer is empty');
        q.answer(a === null ? null : a.trim());
        return null;
      }
      case 'open_workspace_file':
        if (!String(args.path).startsWith('/')) throw ipcError('invalid_input', `\`${String(args.path)}\` is outside the workspace`);
        return null;
      case 'restore_backup':
        return this.restore(args.path as string, (args.backup ?? null) as string | null);
      case 'list_agents':
        return structuredClone(this.agents);
      case 'attach_paths':
        return this.attach((args.paths as string[]).map((p) => ({ name: p.split(/[\\/]/).pop() ?? p, size: 20480 + p.length * 999 })));
      case 'attach_bytes':
        return this.attach([{ name: args.name as string, size: Math.floor(((args.dataBase64 as string).length * 3) / 4) }]);
      case 'remove_attachment':
        this.attachments = this.attachments.filter((a) => a.id !== args.id);
        void this.emitAttachments();
        return this.attachments;
      case 'list_attachments':
        return this.attachments;
      case 'list_memories':
        return structuredClone(this.memories);
      case 'add_memory': {
        const text = (args.text as string).trim();
        if (!text) throw ipcError('invalid_input', 'there is nothing to remember');
        if (!this.memories.some((m) => m.text.toLowerCase() === text.toLowerCase())) {
          this.memories.push({ id: `m${(0x10000000 + this.memories.length * 7919).toString(16)}`, text, source: 'user', created: Math.floor(Date.now() / 1000) });
        }
        return structuredClone(this.memories);
      }
      case 'update_memory': {
        const m = this.memories.find((m) => m.id === args.id);
        if (!m) throw ipcError('not_found', `no memory has the id ${args.id as string}`);
        m.text = (args.text as string).trim();
        return structuredClone(this.memories);
      }
      case 'forget_memory':
        this.memories = this.memories.filter((m) => m.id !== args.id);
        return structuredClone(this.memories);
      case 'list_tasks':
        return structuredClone(this.tasks);
      case 'add_task':
        return this.addTask(args.prompt as string, args.when as string, (args.agent as string | null) ?? null, Boolean(args.email));
      case 'remove_task':
        this.tasks = this.tasks.filter((t) => t.id !== args.id);
        return structuredClone(this.tasks);
      case 'run_task':
        return this.runTask(args.id as string);
      case 'list_sessions':
        return [...this.sessions.values()].filter((s) => !s.deleted).map((s) => this.summary(s));
      case 'load_session': {
        const s = this.sessions.get(args.id as string);
        if (!s || s.deleted) throw ipcError('not_found', 'That chat no longer exists.');
        return this.sessionView(s);
      }
      case 'switch_branch': {
        const s = this.sessions.get(args.id as string);
        if (!s || s.deleted) throw ipcError('not_found', 'That chat no longer exists.');
        switchBranch(s, args.at as number, args.to as number);
        return this.sessionView(s);
      }
      case 'rename_session': {
        const s = this.sessions.get(args.id as string);
        if (!s) throw ipcError('not_found', 'That chat no longer exists.');
        s.title = args.title as string;
        return this.summary(s);
      }
      case 'delete_session': {
        const s = this.sessions.get(args.id as string);
        if (!s) throw ipcError('not_found', 'That chat no longer exists.');
        s.deleted = true;
        return null;
      }
      case 'restore_session': {
        const s = this.sessions.get(args.id as string);
        if (!s) throw ipcError('not_found', 'That chat is not in the trash.');
        s.deleted = false;
        return this.summary(s);
      }
      case 'move_session': {
        const s = this.sessions.get(args.id as string);
        if (!s || s.deleted) throw ipcError('not_found', 'That chat no longer exists.');
        const to = (args.project ?? null) as string | null;
        if (to !== null) this.project(to);
        s.project = to;
        return null;
      }
      case 'list_projects':
        return structuredClone(this.sortedProjects());
      case 'create_project': {
        const p = this.checkProject(args.project as NewProject, null);
        const made: Project = { id: this.projectId(), ...p, created: Math.floor(Date.now() / 1000) };
        this.projects.push(made);
        return structuredClone(made);
      }
      case 'update_project': {
        const p = this.project(args.id as string);
        const next = this.checkProject(args.project as NewProject, p.id);
        delete p.instructions;
        delete p.agent;
        delete p.provider;
        Object.assign(p, next);
        return structuredClone(p);
      }
      case 'delete_project': {
        const p = this.project(args.id as string);
        this.projects = this.projects.filter((x) => x.id !== p.id);
        // Like the engine: its chats go to the trash (naming the project
        // still), its folder stays.
        const trashed = [...this.sessions.values()].filter((s) => s.project === p.id && !s.deleted);
        for (const s of trashed) s.deleted = true;
        return trashed.map((s) => s.id);
      }
      case 'app_info': {
        const p = this.current();
        const firstRun = this.settings.provider === null ? structuredClone(this.firstRun) : null;
        return { version: '0.1.0-mock', provider: p.name, model: p.model, workspace: this.settings.workspace, warnings: [], firstRun };
      }
      case 'models_overview':
        return this.modelsView();
      case 'rescan_local_servers':
        await sleep(60);
        return this.modelsView();
      case 'pull_model':
        return this.pullModel(args.name as string, args.onProgress as ChannelLike);
      case 'cancel_pull': {
        const running = this.pulls.has(args.name as string);
        this.pulls.delete(args.name as string);
        return running;
      }
      case 'remove_model': {
        const m = this.models.models.find((x) => x.name === args.name);
        if (!m) throw ipcError('not_found', `no model named \`${String(args.name)}\` in the catalog`);
        const had = m.pulled || m.partialBytes !== null;
        m.pulled = false;
        m.partialBytes = null;
        this.providers = this.providers.filter((p) => p.name !== m.name);
        if (this.settings.provider === m.name) this.settings = { ...this.settings, provider: null };
        return had;
      }
      case 'get_settings':
        return structuredClone(this.settings);
      case 'save_settings': {
        const s = args.settings as SettingsView;
        if (s.provider !== null && !this.providers.some((p) => p.name === s.provider)) throw ipcError('config', `There is no provider named “${s.provider}”.`);
        if (!s.workspace.trim()) throw ipcError('config', 'The workspace folder is empty.', 'settings.workspace: must not be empty');
        this.settings = structuredClone(s);
        this.providers = this.providers.map((p) => ({ ...p, selected: p.name === this.current().name }));
        return structuredClone(this.settings);
      }
      case 'list_providers':
        return this.providers.map((p) => ({ ...p }));
      case 'update_provider': {
        const p = this.providers.find((x) => x.name === args.name);
        if (!p) throw ipcError('not_found', 'No such provider.');
        if (!p.custom) throw ipcError('invalid_input', 'Only entries from your providers file can be edited.');
        if (typeof args.endpoint === 'string') p.endpoint = args.endpoint;
        if (typeof args.model === 'string') p.model = args.model;
        return { ...p };
      }
      case 'key_status':
        return this.keyStatus(args.provider as string);
      case 'set_api_key': {
        const key = (args.key as string).trim();
        if (!key) throw ipcError('invalid_input', 'The key is empty.');
        this.keys.set(args.provider as string, key);
        this.setReady(args.provider as string, true);
        return this.keyStatus(args.provider as string);
      }
      case 'delete_api_key':
        this.keys.delete(args.provider as string);
        this.setReady(args.provider as string, false);
        return this.keyStatus(args.provider as string);
      case 'index_status':
        return { ...this.index };
      case 'rebuild_index':
        this.index = { ...this.index, state: 'indexing', done: 0, total: 40 };
        void this.fakeIndexing();
        return { ...this.index };
      case 'voice_devices':
        return structuredClone(this.audioDevices);
      case 'browser_settings':
        return structuredClone(this.browser);
      case 'save_browser_settings':
        return this.saveBrowser(args.settings as Full<BrowserSettingsView>);
      case 'test_browser':
        return structuredClone(this.browserTest);
      case 'mail_settings':
        return structuredClone(this.mail);
      case 'save_mail_settings':
        return this.saveMail(args.settings as Full<MailSettingsView>, args.imapPassword as string | null, args.smtpPassword as string | null);
      case 'test_mail':
        return structuredClone(this.mailTest);
      case 'run_team':
        return this.runTeam(args.prompt as string, args.onEvent as ChannelLike);
      case 'stop_team':
        this.teamStopped = true;
        return null;
      case 'run_research':
        return this.runResearch(args.question as string, args.onEvent as ChannelLike);
      case 'stop_research':
        this.researchStopped = true;
        return null;
      case 'save_research':
        return this.saveResearch(args.format as ReportFormat);
      case 'research_settings':
        return structuredClone(this.researchSettings);
      case 'save_research_settings':
        return this.saveResearchSettings(args.settings as Full<ResearchSettingsView>, args.key as string | null);
      case 'mcp_servers':
        return structuredClone(this.mcp);
      case 'set_mcp_server_enabled':
        return this.enableMcp(args.name as string, args.enabled as boolean);
      case 'set_mcp_server_trusted':
        return this.trustMcp(args.name as string, args.trusted as boolean);
      case 'add_mcp_server':
        return this.addMcp(args.name as string, args.server as NewMcpServer);
      case 'mcp_prompts':
        return structuredClone(this.mcpPrompts);
      case 'server_status':
        return structuredClone(this.server);
      case 'start_server':
        return this.startServer();
      case 'server_key':
        return this.serverKey;
      case 'stop_server':
        this.server = { ...this.server, url: null, error: null };
        return structuredClone(this.server);
      case 'save_server_settings':
        return this.saveServer(args.settings as Full<ServerSettings>);
      case 'desktop_settings':
        return structuredClone(this.desktop);
      case 'app_language':
        return this.desktop.settings.language ?? this.desktop.systemLanguage;
      case 'save_desktop_settings':
        return this.saveDesktop(args.settings as Full<DesktopSettings>);
      case 'hide_quick_window':
        this.quick.hidden++;
        return null;
      case 'show_quick_window':
        this.quick.shown++;
        return null;
      case 'open_in_main_window':
        this.quick.movedToMain.push(args.sessionId as string);
        return null;
      case 'voice_settings':
        return this.voiceView();
      case 'save_voice_settings':
        return this.saveVoice(args.settings as Full<VoiceSettingsView>);
      case 'voice_start':
        return this.voiceStart(args.onEvent as ChannelLike, (args.session as string | null) ?? null, (args.agent as string | null) ?? null);
      case 'voice_talk': {
        const run = this.runningVoice();
        this.voiceTalk(run, args.pressed as boolean);
        return null;
      }
      case 'voice_stop_speaking':
        this.runningVoice().stopSpeaking = true;
        return null;
      case 'voice_stop':
        if (this.voiceRun) this.endVoice(this.voiceRun);
        return null;
      case 'plugin:dialog|open': {
        const o = (args.options ?? {}) as { directory?: boolean; multiple?: boolean };
        if (o.directory) return '/home/ada/Projects/new-workspace';
        return o.multiple === false ? '/home/ada/Downloads/conversations.json' : ['/home/ada/Downloads/report.pdf', '/home/ada/notes.md'];
      }
      case 'export_conversations': {
        const session = (args.session as string | null) ?? null;
        const project = (args.project as string | null) ?? null;
        this.exported.push({ dir: args.dir as string, format: args.format as string, session, project });
        const live = [...this.sessions.values()].filter((s) => !s.deleted);
        if (project) return live.filter((s) => s.project === project).length;
        return session ? 1 : live.length;
      }
      case 'import_conversations':
        return { format: 'chatGpt', imported: ['chatgpt-6f1c2a7e'], alreadyHere: [], leftOut: ['“Trip to Lisbon”: 1 attached file left out (the export holds its name only)'] };
      case 'plugin:opener|open_url':
        this.opened.push(args.url as string);
        return null;
      default:
        throw ipcError('internal', `The mock does not know the command ${cmd}.`);
    }
  }

  /** Like the Rust side: refused while a turn runs; the current version becomes the next backup. */
  private async restore(path: string, backup: string | null): Promise<RestoredFile> {
    if (this.active.size > 0) throw ipcError('busy', 'an answer is still being written; restore the file once it has finished');
    path = (path ?? '').trim();
    if (!path) throw ipcError('invalid_input', 'no file was named to restore');
    await sleep(this.restoreMs);
    if (this.restoreError) {
      const e = this.restoreError;
      this.restoreError = null;
      throw e;
    }
    const n = this.backups.get(path) ?? 0;
    if (n === 0) throw ipcError('not_found', `there are no backups of \`${path}\``);
    const from = backup ?? backupName(path, n);
    if (!from.startsWith(`${path}.`) || !from.endsWith('.bak')) throw ipcError('invalid_input', `\`${from}\` is not a backup of \`${path}\``);
    this.backups.set(path, n + 1);
    return { path, restoredFrom: from, savedCurrent: backupName(path, n + 1) };
  }

  private saveMail(m: Full<MailSettingsView>, imap: string | null, smtp: string | null): Full<MailSettingsView> {
    if (m.address && !/^[^@\s]+@[^@\s]+$/.test(m.address)) throw ipcError('invalid_input', `\`${m.address}\` is not an e-mail address such as ana@example.org`);
    if (imap) this.mailPasswords.imap = imap;
    if (smtp) this.mailPasswords.smtp = smtp;
    this.mail = structuredClone(m);
    this.mail.imap.passwordSet = !!this.mailPasswords.imap;
    this.mail.smtp.passwordSet = !!this.mailPasswords.smtp;
    return structuredClone(this.mail);
  }

  /** Team mode: the run `run_team` plays, one event every `teamStepMs`. */
  teamStepMs = 120;
  private teamRunning = false;
  private teamStopped = false;
  researchSettings: Full<ResearchSettingsView> = {
    search: 'browser', searxngUrl: null, sources: 8, parallel: 4, minutes: 10, tokens: null, braveKeySet: false, tavilyKeySet: false,
  };

  /** Like the Rust side: SearXNG needs its address, an API its key. */
  private saveResearchSettings(settings: Full<ResearchSettingsView>, key: string | null): Full<ResearchSettingsView> {
    const url = settings.searxngUrl?.trim().replace(/\/+$/, '') || null;
    if (settings.search === 'searxng' && !/^https?:\/\//.test(url ?? '')) {
      throw ipcError('invalid_input', 'SearXNG needs its address, such as http://localhost:8888');
    }
    const next = { ...settings, searxngUrl: url };
    if (key?.trim() && settings.search === 'brave') next.braveKeySet = true;
    if (key?.trim() && settings.search === 'tavily') next.tavilyKeySet = true;
    if ((next.search === 'brave' && !next.braveKeySet) || (next.search === 'tavily' && !next.tavilyKeySet)) {
      throw ipcError('invalid_input', 'this search needs its API key: paste it in the key field');
    }
    this.researchSettings = next;
    return structuredClone(next);
  }

  private researchRunning = false;
  private researchStopped = false;
  private report: ResearchReport | null = null;

  /** Like the Rust side: one job at a time; Stop ends it with "the research was stopped". */
  private async runResearch(question: string, ch: ChannelLike): Promise<ResearchReport> {
    if (this.researchRunning) throw ipcError('busy', 'a research job is already running; stop it or wait for its report');
    if (!question.trim()) throw ipcError('invalid_input', 'there is no question to research');
    this.researchRunning = true;
    this.researchStopped = false;
    const site = 'https://velmar.example';
    const steps: ResearchEvent[] = [
      { kind: 'stage', stage: 'planning' },
      { kind: 'planned', questions: ['How long is the Velmar river?', 'When was Velmar city founded?'] },
      { kind: 'stage', stage: 'searching' },
      { kind: 'searched', query: 'How long is the Velmar river?', found: 8, failed: null },
      { kind: 'searched', query: 'When was Velmar city founded?', found: 0, failed: 'SearXNG answered 502 Bad Gateway' },
      { kind: 'stage', stage: 'reading' },
      { kind: 'sourceRead', url: `${site}/river`, title: 'The Velmar river at a glance', kept: 2, dropped: 1 },
      { kind: 'sourceFailed', url: `${site}/gone`, why: '`https://velmar.example/gone` did not open: net::ERR_NAME_NOT_RESOLVED' },
      { kind: 'sourceRead', url: `${site}/city`, title: 'History of Velmar city', kept: 1, dropped: 0 },
      { kind: 'stage', stage: 'reviewing' },
      { kind: 'reviewed', kept: 3, dropped: 0 },
      { kind: 'stage', stage: 'writing' },
    ];
    let index = 0;
    for (const step of steps) {
      await sleep(this.teamStepMs);
      if (this.researchStopped) break;
      internals().runCallback(ch.id, { index: index++, message: step });
    }
    internals().runCallback(ch.id, { index: index++, end: true });
    this.researchRunning = false;
    if (this.researchStopped) throw ipcError('invalid_input', 'the research was stopped');
    const markdown = `# ${question}\n\nThe Velmar is 412 km long and rises in the Ostra hills [1]. Velmar city was founded in 1204 [2].\n\n## Sources\n\n1. [The Velmar river at a glance](<${site}/river>)\n   > “The Velmar river is 412 km long”\n2. [History of Velmar city](<${site}/city>)\n   > “Velmar city was founded in 1204”\n`;
    this.report = {
      question,
      questions: ['How long is the Velmar river?', 'When was Velmar city founded?'],
      markdown,
      sources: [
        { n: 1, url: `${site}/river`, title: 'The Velmar river at a glance' },
        { n: 2, url: `${site}/city`, title: 'History of Velmar city' },
      ],
      claims: [
        { text: 'The Velmar is 412 km long', quote: 'The Velmar river is 412 km long', source: 1 },
        { text: 'It rises in the Ostra hills', quote: 'It rises in the Ostra hills', source: 1 },
        { text: 'Velmar city was founded in 1204', quote: 'Velmar city was founded in 1204', source: 2 },
      ],
      dropped: [{ claim: 'The hills are 2,000 m high', quote: 'the hills rise to 2,000 metres', url: `${site}/river`, why: { kind: 'notOnPage' } }],
      conflicts: [],
      pagesRead: 2,
      pagesFailed: [{ url: `${site}/gone`, why: 'did not open' }],
      tokens: 5120,
      elapsedMs: 1400,
      notes: [],
    };
    return structuredClone(this.report);
  }

  /** Like the Rust side: the last report, into the workspace's Research folder. */
  private saveResearch(format: ReportFormat): string {
    if (!this.report) throw ipcError('invalid_input', 'there is no report to save yet');
    const stem = this.report.question.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).slice(0, 8).join('-') || 'report';
    return `/home/user/Documents/Research/${stem}.${format}`;
  }

  /** Like the Rust side: one team at a time; Stop ends it, marked cancelled. */
  private async runTeam(prompt: string, ch: ChannelLike): Promise<OrchestrationResult> {
    if (this.teamRunning) throw ipcError('busy', 'a team is already working; stop it or wait for its answer');
    if (!prompt.trim()) throw ipcError('invalid_input', 'the request is empty');
    this.teamRunning = true;
    this.teamStopped = false;
    let index = 0;
    const plan = [
      { task: 'Summarise report A', specialisation: 'research' },
      { task: 'Summarise report B', specialisation: 'writing' },
    ];
    const e = (x: Partial<OrchestrationEvent> & Pick<OrchestrationEvent, 'stage' | 'phase'>): OrchestrationEvent =>
      ({ sessionId: 'team-1', ...x });
    const final = 'Report A shows revenue up 12%; report B shows costs down 4%. **Recommendation:** keep A’s plan and B’s savings.';
    const steps: OrchestrationEvent[] = [
      e({ stage: 'orchestration', phase: 'starting' }),
      e({ stage: 'planning', phase: 'starting', agent: 'assistant' }),
      e({ stage: 'planning', phase: 'stopped', agent: 'assistant', plan }),
      e({ stage: 'agentExecution', phase: 'starting', agent: 'researcher', assignment: 0 }),
      e({ stage: 'agentExecution', phase: 'starting', agent: 'document-preparer', assignment: 1 }),
      e({ stage: 'agentExecution', phase: 'stopped', agent: 'researcher', assignment: 0, text: 'Revenue grew.' }),
      e({ stage: 'agentExecution', phase: 'stopped', agent: 'document-preparer', assignment: 1, text: 'Costs fell 4%.' }),
      e({ stage: 'agentReview', phase: 'starting', agent: 'assistant', assignment: 0, round: 1 }),
      e({ stage: 'agentReview', phase: 'stopped', agent: 'assistant', assignment: 0, round: 1, approved: false, text: 'Give the figure.' }),
      e({ stage: 'agentRevise', phase: 'starting', agent: 'researcher', assignment: 0, round: 1 }),
      e({ stage: 'agentRevise', phase: 'stopped', agent: 'researcher', assignment: 0, round: 1, text: 'Revenue grew 12%.' }),
      e({ stage: 'agentReview', phase: 'stopped', agent: 'assistant', assignment: 0, round: 2, approved: true, text: 'Good.' }),
      e({ stage: 'agentReview', phase: 'stopped', agent: 'assistant', assignment: 1, round: 1, approved: true, text: '' }),
      e({ stage: 'synthesis', phase: 'starting', agent: 'assistant' }),
    ];
    for (const step of steps) {
      await sleep(this.teamStepMs);
      if (this.teamStopped) break;
      internals().runCallback(ch.id, { index: index++, message: step });
    }
    const cancelled = this.teamStopped;
    const end = e({ stage: 'orchestration', phase: 'stopped', text: cancelled ? '' : final, ...(cancelled ? { error: 'cancelled' } : {}) });
    internals().runCallback(ch.id, { index: index++, message: end });
    internals().runCallback(ch.id, { index: index++, end: true });
    this.teamRunning = false;
    return {
      finalResponse: cancelled ? '' : final,
      plan,
      sessionId: 'team-1',
      agentResponses: cancelled ? [] : [
        { agent: 'researcher', assignment: plan[0]!, response: 'Revenue grew 12%.', revisions: 1, tokens: 700 },
        { agent: 'document-preparer', assignment: plan[1]!, response: 'Costs fell 4%.', revisions: 0, tokens: 534 },
      ],
      reviews: [],
      shortCircuited: false,
      cancelled,
      totalTokens: 1234,
      success: !cancelled,
      error: cancelled ? 'cancelled' : null,
      notes: ['no agent has the planning specialisation: assistant planned with Baton’s built-in instructions'],
      elapsedMs: 2400,
      stages: cancelled ? [] : [
        { stage: 'planning', agent: 'planner', elapsedMs: 600 },
        { stage: 'agentExecution', agent: 'researcher', assignment: 0, elapsedMs: 900 },
        { stage: 'agentExecution', agent: 'document-preparer', assignment: 1, elapsedMs: 800 },
        { stage: 'synthesis', agent: 'synthesizer', elapsedMs: 700 },
      ],
    };
  }

  /** Like the Rust side: `enabled` written to its file; a plugin turned on starts. */
  private enableMcp(name: string, enabled: boolean): McpOverview {
    const s = this.mcp.servers.find((x) => x.name === name);
    if (!s) throw ipcError('not_found', `there is no MCP server or plugin named \`${name}\``);
    s.state = enabled ? (s.problem ? 'failed' : 'running') : 'disabled';
    return structuredClone(this.mcp);
  }

  /** Like the Rust side: trusting needs the server running (to pin its tools). */
  private trustMcp(name: string, trusted: boolean): McpOverview {
    const s = this.mcp.servers.find((x) => x.name === name);
    if (!s) throw ipcError('not_found', `there is no MCP server or plugin named \`${name}\``);
    if (trusted && s.state !== 'running') throw ipcError('config', s.problem ?? `the MCP server \`${name}\` is not running`);
    s.trust = trusted ? 'trusted' : 'untrusted';
    return structuredClone(this.mcp);
  }

  /** Like the Rust side: refused without a name and a command or address, or when the name is taken. */
  private addMcp(name: string, server: NewMcpServer): McpOverview {
    const target = server.kind === 'url' ? server.url : [server.command, ...server.args].join(' ');
    if (!name.trim() || !target.trim()) throw ipcError('invalid_input', "give the server's command or its address");
    if (this.mcp.servers.some((s) => s.name === name)) {
      throw ipcError('config', `${this.mcp.mcpFile} cannot be used: there is already a server named \`${name}\``);
    }
    const added: ServerStatus = {
      name, source: { kind: 'mcpJson' }, description: null, target,
      state: 'running', tools: ['echo', 'get-sum'], problem: null, trust: 'untrusted',
    };
    this.mcp.servers = [...this.mcp.servers, added].sort((a, b) => a.name.localeCompare(b.name));
    return structuredClone(this.mcp);
  }

  private startServer(): Full<HttpApiStatus> {
    const { host, port } = this.server.settings;
    // The app's own key is made on the first start.
    this.server = port === this.takenPort
      ? { ...this.server, url: null, error: `could not listen on ${host}:${port}: Address already in use (os error 98)` }
      : { ...this.server, url: `http://${host}:${port}/v1`, error: null, keysRequired: true, keys: Math.max(this.server.keys, 1) };
    return structuredClone(this.server);
  }

  private saveDesktop(v: Full<DesktopSettings>): Full<DesktopStatus> {
    const [quick, talk] = [v.quickShortcut.trim(), v.talkShortcut.trim()];
    for (const shortcut of [quick, talk]) {
      if (shortcut && !/^((CommandOrControl|Ctrl|Control|Alt|Shift|Super|Cmd)\+)+[A-Za-z0-9]+$/.test(shortcut)) {
        throw ipcError('invalid_input', `\`${shortcut}\` is not a shortcut; write modifiers and one key, such as CommandOrControl+Shift+Space or Alt+F12`);
      }
      if (shortcut === this.takenShortcut) throw ipcError('invalid_input', `${shortcut} is already used by another application; choose another shortcut`);
    }
    if (quick && quick === talk) throw ipcError('invalid_input', `${talk} is already the quick window's shortcut`);
    const before = this.desktop.settings.language;
    this.desktop = { ...this.desktop, settings: { ...v, quickShortcut: quick, talkShortcut: talk }, shortcutError: null, talkShortcutError: null };
    if (before !== v.language) void emit('language-changed', { language: v.language ?? this.desktop.systemLanguage });
    return structuredClone(this.desktop);
  }

  private saveServer(v: Full<ServerSettings>): Full<HttpApiStatus> {
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(v.host.trim())) throw ipcError('invalid_input', `\`${v.host}\` is not an IP address such as 127.0.0.1 (0.0.0.0: every network)`);
    this.server = { ...this.server, settings: structuredClone(v) };
    return this.server.url ? this.startServer() : structuredClone(this.server);
  }

  private saveBrowser(b: Full<BrowserSettingsView>): Full<BrowserSettingsView> {
    if (b.path && !b.path.startsWith('/')) throw ipcError('invalid_input', `there is no browser program at ${b.path}`);
    const bad = [...b.allowedSites, ...b.blockedSites].find((s) => /[/ ]/.test(s));
    if (bad) throw ipcError('invalid_input', `\`${bad}\` is not a site name such as example.com`);
    this.browser = { ...structuredClone(b), browsers: this.browser.browsers };
    return structuredClone(this.browser);
  }

  private voiceView(): Full<VoiceSettingsView> {
    const multilingual = this.voiceModels.some((m) => !/\.en[.-]/.test(m));
    const languages = this.voiceLanguages.map(([code, name]) => ({ code, name, available: code === 'en' ? this.voiceModels.length > 0 : multilingual }));
    return { ...structuredClone(this.voice), ttsEngines: [...this.voiceEngines], sttModels: [...this.voiceModels], languages };
  }

  private saveVoice(v: Full<VoiceSettingsView>): Full<VoiceSettingsView> {
    if (!this.voiceEngines.includes(v.ttsEngine)) throw ipcError('invalid_input', `there is no speech engine named \`${v.ttsEngine}\``);
    if (v.sttModel !== null && !this.voiceModels.includes(v.sttModel))
      throw ipcError('invalid_input', `there is no Whisper model \`${v.sttModel}\` in /home/ada/.local/share/baton/models`);
    if (!(v.ttsRate >= 80 && v.ttsRate <= 450)) throw ipcError('invalid_input', 'the speaking rate must be 80–450 words per minute');
    if (!(v.endSilenceMs >= 200 && v.endSilenceMs <= 5000)) throw ipcError('invalid_input', 'the pause that ends speech must be 200–5000 ms');
    const lang = (this.voiceView().languages ?? []).find((l) => l.code === v.language);
    if (!lang) throw ipcError('invalid_input', `Whisper does not know the language \`${v.language}\``);
    if (v.language !== 'en' && v.sttModel !== null && /\.en[.-]/.test(v.sttModel))
      throw ipcError('invalid_input', `${v.sttModel} understands only English: pick a multilingual model for ${lang.name}`);
    if (!lang.available) throw ipcError('invalid_input', `no Whisper model here understands ${lang.name}: run \`make setup\` (it fetches ggml-base-q8_0.bin)`);
    this.voice = {
      ...this.voice,
      pushToTalk: v.pushToTalk,
      inputDevice: v.inputDevice || null,
      outputDevice: v.outputDevice || null,
      ttsEngine: v.ttsEngine,
      ttsVoice: v.ttsVoice?.trim() ? v.ttsVoice : null,
      ttsRate: v.ttsRate,
      sttModel: v.sttModel,
      endSilenceMs: v.endSilenceMs,
      language: v.language,
      echoCancellation: v.echoCancellation,
      noiseSuppression: v.noiseSuppression,
    };
    return this.voiceView();
  }

  private runningVoice(): VoiceRun {
    if (!this.voiceRun) throw ipcError('invalid_input', 'no voice conversation is running');
    return this.voiceRun;
  }

  /** Sends a voice event on the running conversation's channel (tests use it for errors). */
  emitVoice(ev: VoiceEvent): void {
    if (this.voiceRun) this.sendVoice(this.voiceRun, ev);
  }

  private sendVoice(run: VoiceRun, ev: VoiceEvent): void {
    if (run.ended && ev.kind !== 'stopped') return;
    if (ev.kind !== 'level') this.voiceEvents.push(ev);
    internals().runCallback(run.ch.id, { index: run.index++, message: ev });
  }

  private async voiceStart(ch: ChannelLike, sessionId: string | null, agent: string | null): Promise<VoiceStarted> {
    if (this.voiceRun) throw ipcError('busy', 'a voice conversation is already running');
    await sleep(120); // opening the devices and the speech engines
    if (this.voiceStartError) {
      const e = this.voiceStartError;
      this.voiceStartError = null;
      throw e;
    }
    if (sessionId && !this.sessions.get(sessionId)) throw ipcError('not_found', 'That chat no longer exists.');
    // Like the engine: the session is saved once something was said.
    const session = sessionId ?? `s${this.seq++}`;
    const r = rng(9);
    const run: VoiceRun = {
      ch,
      session,
      agent,
      index: 0,
      pushToTalk: this.voice.pushToTalk,
      loud: false,
      held: false,
      stopSpeaking: false,
      answering: false,
      ended: false,
      partialTimer: null,
      timer: setInterval(() => {
        const rms = run.loud ? 0.08 + r() * 0.22 : 0.003 + r() * 0.006;
        this.sendVoice(run, { kind: 'level', rms });
      }, 50),
    };
    this.voiceRun = run;
    if (!run.pushToTalk && this.voiceAutoMs >= 0) setTimeout(() => void this.voiceExchange(), this.voiceAutoMs);
    const mic = this.audioDevices.inputs.find((d) => d.id === this.voice.inputDevice) ?? this.audioDevices.inputs.find((d) => d.isDefault);
    return {
      stt: `whisper.cpp (${this.voice.sttModel ?? this.voiceModels[0]})`,
      tts: this.voice.ttsEngine === 'espeak' ? 'eSpeak NG' : ['auto', 'piper'].includes(this.voice.ttsEngine) ? 'piper (en_US-joe-medium)' : this.voice.ttsEngine,
      microphone: mic?.name ?? 'default microphone',
      pushToTalk: run.pushToTalk,
      sessionId: session,
    };
  }

  /** Hands-free: the user says the scripted question, then Baton answers. */
  async voiceExchange(): Promise<void> {
    const run = this.voiceRun;
    if (!run || run.ended) return;
    const sc = this.voiceScript;
    if (run.answering) {
      // Talking over the answer: barge-in.
      run.stopSpeaking = true;
      this.sendVoice(run, { kind: 'bargeIn', silencedMs: 40, speechMs: 300 });
    }
    run.loud = true;
    this.sendVoice(run, { kind: 'speechStarted' });
    for (const p of sc.partials) {
      await sleep(this.voiceStepMs);
      this.sendVoice(run, { kind: 'partial', text: p });
    }
    await sleep(this.voiceStepMs);
    run.loud = false;
    await sleep(this.voiceStepMs);
    this.sendVoice(run, { kind: 'transcript', text: sc.transcript, sttMs: sc.timing?.sttMs ?? 95 });
    await this.voiceAnswer(run);
  }

  private voiceTalk(run: VoiceRun, pressed: boolean): void {
    if (pressed === run.held) return;
    run.held = pressed;
    const sc = this.voiceScript;
    if (pressed) {
      if (run.answering) {
        run.stopSpeaking = true;
        this.sendVoice(run, { kind: 'bargeIn', silencedMs: 40, speechMs: 300 });
      }
      run.loud = true;
      this.sendVoice(run, { kind: 'speechStarted' });
      let i = 0;
      run.partialTimer = setInterval(() => {
        if (i < sc.partials.length) this.sendVoice(run, { kind: 'partial', text: sc.partials[i++]! });
      }, this.voiceStepMs);
    } else {
      run.loud = false;
      if (run.partialTimer) clearInterval(run.partialTimer);
      run.partialTimer = null;
      setTimeout(() => {
        this.sendVoice(run, { kind: 'transcript', text: sc.transcript, sttMs: sc.timing?.sttMs ?? 95 });
        void this.voiceAnswer(run);
      }, this.voiceStepMs);
    }
  }

  private async voiceAnswer(run: VoiceRun): Promise<void> {
    const sc = this.voiceScript;
    // Wait for an answer being cut short to end first.
    while (run.answering && !run.ended) await sleep(10);
    run.answering = true;
    run.stopSpeaking = false;
    let spoke = false;
    const cut = () => run.stopSpeaking || run.ended;
    await sleep(this.voiceStepMs * 2); // the model thinks
    for (let i = 0; i < sc.answer.length && !cut(); i++) {
      this.sendVoice(run, { kind: 'answerText', text: sc.answer[i]! });
      const k = sc.sentenceAfter.indexOf(i);
      if (k >= 0) {
        this.sendVoice(run, { kind: 'speaking', sentence: sc.sentences[k]! });
        spoke = true;
        for (let t = 0; t < this.voiceSentenceMs && !cut(); t += 20) await sleep(20);
      } else {
        await sleep(this.voiceStepMs);
      }
    }
    const interrupted = cut();
    this.keepVoiceTurn(run, sc.answer.join(''), interrupted, spoke ? (sc.timing?.firstAudioMs ?? null) : null);
    this.sendVoice(run, { kind: 'answerDone', interrupted, timing: spoke ? sc.timing : null });
    run.answering = false;
    run.stopSpeaking = false;
  }

  /** The spoken exchange joins the voice conversation's session (as the engine saves it). */
  private keepVoiceTurn(run: VoiceRun, answer: string, interrupted: boolean, firstAudioMs: number | null): void {
    const sc = this.voiceScript;
    let s = this.sessions.get(run.session);
    if (!s) {
      s = { id: run.session, title: sc.transcript.slice(0, 48), updatedMs: Date.now(), messages: [], deleted: false, agent: run.agent, project: null, forks: [] };
      this.sessions.set(run.session, s);
    }
    s.messages.push({ role: 'user', text: sc.transcript, toolCalls: [], attachments: [], spoken: { firstAudioMs, interrupted }, citations: [], branch: null });
    s.messages.push({ role: 'assistant', text: answer, toolCalls: [], attachments: [], spoken: null, citations: [], branch: null });
    s.updatedMs = Date.now();
  }

  private endVoice(run: VoiceRun): void {
    run.ended = true;
    clearInterval(run.timer);
    if (run.partialTimer) clearInterval(run.partialTimer);
    this.voiceRun = null;
    setTimeout(() => {
      this.sendVoice(run, { kind: 'stopped' });
      internals().runCallback(run.ch.id, { index: run.index++, end: true });
    }, 40);
  }

  private current(): ProviderInfo {
    return this.providers.find((p) => p.name === this.settings.provider) ?? this.providers.find((p) => p.isDefault)!;
  }

  private keyStatus(provider: string): KeyStatus {
    const k = this.keys.get(provider);
    return { provider, stored: !!k, masked: k ? mask(k) : null, source: k ? 'keychain' : 'none' };
  }

  private setReady(name: string, ready: boolean) {
    const p = this.providers.find((x) => x.name === name);
    if (p && p.apiKeyEnv) {
      p.ready = ready;
      p.keyMissing = !ready;
      p.detail = ready ? 'API key in the keychain' : `no API key: run \`baton secret set ${p.name}\` or set ${p.apiKeyEnv}`;
    }
  }

  private async fakeIndexing() {
    for (let i = 1; i <= 40; i++) {
      await sleep(40);
      await this.emitIndex({ state: 'indexing', done: i, total: 40 });
    }
    await this.emitIndex({ state: 'idle', documents: this.index.documents + 3, done: 0, total: 0 });
  }

  private attach(files: { name: string; size: number }[]): AttachmentView[] {
    const added: AttachmentView[] = files.map((f) => ({ id: `a${this.attSeq++}`, name: f.name, size: f.size, state: { kind: 'converting' } }));
    this.attachments = [...this.attachments, ...added];
    void this.emitAttachments();
    setTimeout(() => {
      this.attachments = this.attachments.map((a) => {
        if (!added.some((x) => x.id === a.id)) return a;
        if (/\.(exe|bin|zip)$/i.test(a.name)) return { ...a, state: { kind: 'skipped', reason: 'binary file, no text to read' } };
        return { ...a, state: { kind: 'ready', format: (a.name.split('.').pop() ?? 'txt').toUpperCase(), chars: 1200, pages: /\.pdf$/i.test(a.name) ? 3 : null } };
      });
      void this.emitAttachments();
    }, 400);
    return this.attachments;
  }

  private async send(req: SendRequest, ch: ChannelLike): Promise<TurnResult> {
    if (!req.text.trim()) throw ipcError('invalid_input', 'The message is empty.');
    let s = req.sessionId ? this.sessions.get(req.sessionId) : undefined;
    if (req.sessionId && !s) throw ipcError('not_found', 'That chat no longer exists.');
    if (s && this.active.has(s.id)) throw ipcError('busy', 'an answer is still being written in this chat; stop it or wait for it to finish');
    const agent = req.agent ?? null;
    if (agent !== null && !this.agents.some((a) => a.name === agent)) throw ipcError('not_found', `agent \`${req.agent}\`: no such agent`);
    // Only a new conversation is put in a project here (`move_session` moves a saved one).
    const project = !s && req.project ? this.project(req.project).id : null;
    if (!s) {
      const id = this.addSession(req.text.trim().slice(0, 48), Date.now(), []);
      s = this.sessions.get(id)!;
      s.project = project;
    }
    // Editing user message `edit` (or the last): what was there from it on
    // stays as a branch; the files it carried go with the new one.
    const last = userMessages(s.messages) - 1;
    const edited = req.edit ?? (req.replaceLast ? last : null);
    let carried: string[] = [];
    if (edited !== null) {
      if (edited < 0) throw ipcError('invalid_input', 'there is no earlier message to edit in this conversation');
      carried = fork(s, edited).attachments;
    }
    const names = [...carried, ...this.attachments.filter((a) => req.attachmentIds.includes(a.id)).map((a) => a.name)];
    this.attachments = this.attachments.filter((a) => !req.attachmentIds.includes(a.id));
    if (req.attachmentIds.length) void this.emitAttachments();
    s.messages.push({ role: 'user', text: req.text, toolCalls: [], attachments: names, spoken: null, citations: [], branch: null });
    if (agent !== null) s.agent = agent;
    // Slash commands never reach the model (nothing to load).
    return this.run(s, this.scriptFor(req), ch, !req.text.trim().startsWith('/'));
  }

  private async run(s: Session, script: Script, ch: ChannelLike, usesModel = true): Promise<TurnResult> {
    const turn: ActiveTurn = { stop: false, waiting: null, asking: null };
    this.active.set(s.id, turn);
    let index = 0;
    const send = (message: ChatEvent) => internals().runCallback(ch.id, { index: index++, message });
    send({ type: 'started', sessionId: s.id, title: s.title });
    if (usesModel) await this.loadModel();
    let text = '';
    const tools = new Map<string, ToolCallView>();
    let citations: Citation[] = [];
    // Widened: `track` changes it, which narrowing cannot see.
    let reason = 'answered' as TurnEnd;
    const track = (ev: ChatEvent) => {
      send(ev);
      if (ev.type === 'textDelta') text += ev.text;
      else if (ev.type === 'toolStarted') tools.set(ev.id, { id: ev.id, name: ev.name, arguments: ev.arguments, result: null, isError: false });
      else if (ev.type === 'toolFinished') {
        const t = tools.get(ev.id);
        if (t) Object.assign(t, { result: ev.result, isError: ev.isError });
      } else if (ev.type === 'cited') {
        citations = ev.citations;
        if (ev.answer !== null) text = ev.answer;
      } else if (ev.type === 'commandReply') reason = 'command';
      else if (ev.type === 'error') reason = 'error';
    };
    /** Plays `steps`; `false` when the turn ends there (stopped or failed). */
    const play = async (steps: Iterable<Step>): Promise<boolean> => {
      for (const step of steps) {
        await sleep(step.delay);
        if (turn.stop) {
          reason = 'stopped';
          return false;
        }
        step.events.forEach(track);
        if (reason === 'error') return false;
        if (step.confirm) {
          const c = step.confirm;
          const approved = await new Promise<boolean>((answer) => (turn.waiting = { id: c.id, answer }));
          turn.waiting = null;
          track({ type: 'confirmationResolved', id: c.id, approved });
          if (!(await play(approved ? c.allowed : c.denied))) return false;
        }
        if (step.question) {
          const q = step.question;
          const answer = await new Promise<string | null>((resolve) => (turn.asking = { id: q.id, answer: resolve }));
          turn.asking = null;
          if (turn.stop) {
            reason = 'stopped';
            return false;
          }
          if (!(await play(answer === null ? q.declined : q.answered(answer)))) return false;
        }
      }
      return true;
    };
    await play(script);
    send({ type: 'usage', inputTokens: 640, outputTokens: Math.ceil(text.length / 4) });
    send({ type: 'done', reason });
    internals().runCallback(ch.id, { index: index++, end: true });
    if (reason !== 'command') s.messages.push({ role: 'assistant', text, toolCalls: [...tools.values()], attachments: [], spoken: null, citations, branch: null });
    // A slash command's line is not kept in the conversation (as in the engine).
    else if (s.messages.at(-1)?.role === 'user') s.messages.pop();
    s.updatedMs = Date.now();
    this.active.delete(s.id);
    return { sessionId: s.id, title: s.title, reason };
  }
}

/** A turn in flight: Stop asked, and what it waits for. */
interface ActiveTurn {
  stop: boolean;
  /** The confirmation it waits for, with what answers it. */
  waiting: { id: string; answer: (approved: boolean) => void } | null;
  /** The subagent's question it waits for, with what answers it (`null`: declined, or Stop). */
  asking: { id: string; answer: (answer: string | null) => void } | null;
}

/** How many user messages `history` holds. */
function userMessages(history: readonly MessageView[]): number {
  return history.filter((m) => m.role === 'user').length;
}

/** Where the `n`th user message of `history` is, or -1. */
function userMessageIndex(history: readonly MessageView[], n: number): number {
  let seen = 0;
  for (let i = 0; i < history.length; i++) {
    if (history[i]!.role !== 'user') continue;
    if (seen === n) return i;
    seen++;
  }
  return -1;
}

/** The forks of the branch in view below user message `at` (taken out of `s`). */
function takeForksBelow(s: Session, at: number): Fork[] {
  const below = s.forks.filter((f) => f.at > at);
  s.forks = s.forks.filter((f) => f.at <= at);
  return below;
}

/**
 * Starts a new branch at user message `at` (the engine's `fork`): what was
 * there from it on is kept as a branch, with the forks further down, and
 * the history ends before it. The old user message, for its files.
 */
function fork(s: Session, at: number): MessageView {
  const index = userMessageIndex(s.messages, at);
  if (index < 0) throw ipcError('invalid_input', `this conversation has no user message number ${at}`);
  const tail = s.messages.slice(index);
  s.messages = s.messages.slice(0, index);
  const kept: Branch = { messages: tail, forks: takeForksBelow(s, at) };
  const f = s.forks.find((f) => f.at === at);
  if (f) {
    f.branches[f.current] = kept;
    f.branches.push({ messages: [], forks: [] });
    f.current = f.branches.length - 1;
  } else {
    s.forks.push({ at, current: 1, branches: [kept, { messages: [], forks: [] }] });
  }
  return tail[0]!;
}

/** Shows branch `to` of the fork at user message `at` (the engine's `switch`): the one in view is put away whole. */
function switchBranch(s: Session, at: number, to: number): void {
  const f = s.forks.find((f) => f.at === at);
  if (!f || to < 0 || to >= f.branches.length) throw ipcError('not_found', `the message has no branch number ${to}`);
  if (f.current === to) return;
  // An edit whose answer never came leaves the history ending just before the message.
  let index = userMessageIndex(s.messages, at);
  if (index < 0 && userMessages(s.messages) === at) index = s.messages.length;
  if (index < 0) throw ipcError('invalid_input', `this conversation has no user message number ${at}`);
  const tail = s.messages.slice(index);
  s.messages = s.messages.slice(0, index);
  f.branches[f.current] = { messages: tail, forks: takeForksBelow(s, at) };
  const shown = f.branches[to]!;
  f.branches[to] = { messages: [], forks: [] };
  f.current = to;
  s.messages.push(...shown.messages);
  s.forks.push(...shown.forks);
}

/** The branch in view at user message `at`, of how many (`null`: it has no other). */
function branchOf(forks: readonly Fork[], at: number): BranchView | null {
  const f = forks.find((f) => f.at === at);
  return f ? { index: f.current, count: f.branches.length } : null;
}

function textScript(text: string, before: ChatEvent[], pace: number, after: ChatEvent[] = []): Step[] {
  const steps: Step[] = [];
  for (const ev of before) steps.push({ events: [ev], delay: 120 });
  for (const ev of after) steps.push({ events: [ev], delay: 80 });
  const toks = tokenize(text);
  for (let i = 0; i < toks.length; i += 2) steps.push({ events: [{ type: 'textDelta', text: toks.slice(i, i + 2).join('') }], delay: pace });
  return steps;
}

/** The `n`th backup of `path`: `path.NNN.bak`. */
function backupName(path: string, n: number): string {
  return `${path}.${String(n).padStart(3, '0')}.bak`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
