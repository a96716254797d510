// Settings → Projects: the form's draft of a project and the words the
// section says (pure helpers; the commands are in `api`).
import type { NewProject, Project } from './bindings';
import { t } from './i18n.svelte';

/** The form's fields (`''`: none picked, i.e. the default agent or provider). */
export interface ProjectDraft {
  name: string;
  folder: string;
  instructions: string;
  agent: string;
  provider: string;
}

/** An empty form. */
export function emptyDraft(): ProjectDraft {
  return { name: '', folder: '', instructions: '', agent: '', provider: '' };
}

/** The form filled in with project `p` (to edit it). */
export function draftOf(p: Project): ProjectDraft {
  return { name: p.name, folder: p.folder, instructions: p.instructions ?? '', agent: p.agent ?? '', provider: p.provider ?? '' };
}

/** What the commands are sent: text trimmed, an empty pick as `null`. */
export function toNewProject(d: ProjectDraft): NewProject {
  return {
    name: d.name.trim(),
    folder: d.folder.trim(),
    instructions: d.instructions.trim(),
    agent: d.agent.trim() || null,
    provider: d.provider.trim() || null,
  };
}

/** Whether the form can be sent (the Rust side checks the rest and says why not). */
export function draftReady(d: ProjectDraft): boolean {
  return d.name.trim() !== '' && d.folder.trim() !== '';
}

/** The instructions on one line, cut at `max` characters. */
export function preview(text: string | undefined, max = 120): string {
  const one = (text ?? '').replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1).trimEnd()}…`;
}

/** "1 chat", "3 chats". */
export function chats(n: number): string {
  return t('projects.chats', { count: n });
}

/** The toast after project `name` was removed with `n` of its chats. */
export function removedText(name: string, n: number): string {
  if (n === 0) return t('projects.removed', { name });
  return t('projects.removedChats', { name, count: n });
}

/** What the delete confirmation says will happen. */
export function deleteWarning(n: number): string {
  if (n === 0) return t('projects.deleteWarningNone');
  return t('projects.deleteWarning', { count: n });
}
