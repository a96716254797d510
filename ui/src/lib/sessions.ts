import type { Project, SessionSummary } from './bindings';
import { language } from './i18n.svelte';

/** Newest first, filtered by a case-insensitive title search. */
export function visibleSessions(list: readonly SessionSummary[], query: string): SessionSummary[] {
  const q = query.trim().toLowerCase();
  return list
    .filter((s) => !q || s.title.toLowerCase().includes(q))
    .sort((a, b) => b.updatedMs - a.updatedMs);
}

/** The projects by name (case and accents aside, in the UI language's order), as the sidebar and settings list them. */
export function sortProjects(projects: readonly Project[]): Project[] {
  return [...projects].sort((a, b) => a.name.localeCompare(b.name, language(), { sensitivity: 'base' }) || a.id.localeCompare(b.id));
}

/**
 * The project a chat (or a new chat) is in: `null` when it names none, or
 * one that no longer exists (removed: its chats then count as in none).
 */
export function projectOf(projectId: string | null | undefined, projects: readonly Project[]): Project | null {
  if (!projectId) return null;
  return projects.find((p) => p.id === projectId) ?? null;
}

/** A project with its chats, as the sidebar shows it. */
export interface ProjectGroup {
  project: Project;
  /** Its chats that match the search, newest first. */
  sessions: SessionSummary[];
}

/** The sidebar's chats: by project, then those in none. */
export interface SessionGroups {
  /**
   * The projects by name, each with its matching chats. While searching,
   * only those with a match (or whose name matches: all their chats).
   */
  projects: ProjectGroup[];
  /** The chats of scheduled tasks (in no project) that match, newest first. */
  scheduled: SessionSummary[];
  /** The other chats in no (known) project that match the search, newest first. */
  loose: SessionSummary[];
}

/** The chat a scheduled task's runs are kept in (`scheduled-` and the task's id). */
export function isScheduledChat(id: string): boolean {
  return /^scheduled-t[0-9a-f]{8}$/.test(id);
}

/**
 * Groups the chats by project for the sidebar. The search filters chat
 * titles within each group; a project whose name matches keeps all its
 * chats. A chat whose project is not among `projects` (removed since) is
 * shown with the chats in none.
 */
export function groupSessions(sessions: readonly SessionSummary[], projects: readonly Project[], query: string): SessionGroups {
  const q = query.trim().toLowerCase();
  const known = new Set(projects.map((p) => p.id));
  const byProject = new Map<string, SessionSummary[]>();
  const loose: SessionSummary[] = [];
  for (const s of sessions) {
    if (s.project !== null && known.has(s.project)) {
      const list = byProject.get(s.project);
      if (list) list.push(s);
      else byProject.set(s.project, [s]);
    } else {
      loose.push(s);
    }
  }
  const groups: ProjectGroup[] = [];
  for (const project of sortProjects(projects)) {
    const own = byProject.get(project.id) ?? [];
    const nameMatches = q !== '' && project.name.toLowerCase().includes(q);
    const matching = visibleSessions(own, nameMatches ? '' : q);
    if (q && !nameMatches && matching.length === 0) continue;
    groups.push({ project, sessions: matching });
  }
  const scheduled = loose.filter((s) => isScheduledChat(s.id));
  const others = loose.filter((s) => !isScheduledChat(s.id));
  return { projects: groups, scheduled: visibleSessions(scheduled, q), loose: visibleSessions(others, q) };
}
