// The sidebar's grouping of chats by project, and the Projects section's words.
import { describe, expect, it } from 'vitest';
import type { Project, SessionSummary } from './bindings';
import { groupSessions, projectOf, sortProjects } from './sessions';
import { chats, deleteWarning, draftOf, draftReady, emptyDraft, preview, removedText, toNewProject } from './projects';

const chat = (id: string, title: string, updatedMs: number, project: string | null = null): SessionSummary => ({
  id,
  title,
  updatedMs,
  messageCount: 2,
  agent: null,
  voiceTurns: 0,
  project,
});

const project = (id: string, name: string, extra: Partial<Project> = {}): Project => ({ id, name, folder: `/home/ada/${name}`, created: 1765000000, ...extra });

const gdynia = project('p00000001', 'Port of Gdynia');
const thesis = project('p00000002', 'thesis');
const archive = project('p00000003', 'Archive');

const sessions = [
  chat('s1', 'Berth schedule', 10, gdynia.id),
  chat('s2', 'Pilot fees', 30, gdynia.id),
  chat('s3', 'Chapter 2 outline', 20, thesis.id),
  chat('s4', 'Rust ownership', 40),
  chat('s5', 'Lisbon trip', 5),
  chat('s6', 'Old harbour notes', 50, 'p0000dead'), // its project was removed
];

const ids = (list: readonly SessionSummary[]) => list.map((s) => s.id);

describe('groupSessions', () => {
  it('groups chats by project (by name), newest first in each; the rest after', () => {
    const g = groupSessions(sessions, [thesis, gdynia, archive], '');
    expect(g.projects.map((x) => x.project.name)).toEqual(['Archive', 'Port of Gdynia', 'thesis']);
    expect(g.projects.map((x) => ids(x.sessions))).toEqual([[], ['s2', 's1'], ['s3']]);
    expect(ids(g.loose)).toEqual(['s6', 's4', 's5']);
  });

  it("scheduled tasks' chats have a group of their own, searched like the rest", () => {
    const withTasks = [...sessions, chat('scheduled-t0a1b2c3d', 'Harbour news', 60), chat('scheduled-notes', 'Not a task chat', 1)];
    const g = groupSessions(withTasks, [gdynia], '');
    expect(ids(g.scheduled)).toEqual(['scheduled-t0a1b2c3d']);
    expect(ids(g.loose)).toEqual(['s6', 's4', 's3', 's5', 'scheduled-notes']);
    expect(groupSessions(withTasks, [], 'lisbon').scheduled).toEqual([]);
  });

  it('a chat whose project is not known counts as in none', () => {
    const g = groupSessions(sessions, [gdynia], '');
    expect(g.projects.map((x) => ids(x.sessions))).toEqual([['s2', 's1']]);
    expect(ids(g.loose)).toEqual(['s6', 's4', 's3', 's5']);
  });

  it('with no projects it is the plain list, newest first', () => {
    const g = groupSessions(sessions, [], '');
    expect(g.projects).toEqual([]);
    expect(ids(g.loose)).toEqual(['s6', 's4', 's2', 's3', 's1', 's5']);
  });

  it('the search filters titles within each group and hides groups with no match', () => {
    const g = groupSessions(sessions, [gdynia, thesis, archive], ' PILOT ');
    expect(g.projects.map((x) => [x.project.name, ids(x.sessions)])).toEqual([['Port of Gdynia', ['s2']]]);
    expect(g.loose).toEqual([]);
    const r = groupSessions(sessions, [gdynia, thesis], 'u');
    expect(r.projects.map((x) => [x.project.name, ids(x.sessions)])).toEqual([
      ['Port of Gdynia', ['s1']],
      ['thesis', ['s3']],
    ]);
    expect(ids(r.loose)).toEqual(['s6', 's4']);
    expect(groupSessions(sessions, [gdynia, thesis], 'zzz')).toEqual({ projects: [], scheduled: [], loose: [] });
  });

  it("a project whose name matches shows all its chats (and shows even when it has none)", () => {
    const g = groupSessions(sessions, [gdynia, archive], 'gdynia');
    expect(g.projects.map((x) => [x.project.name, ids(x.sessions)])).toEqual([['Port of Gdynia', ['s2', 's1']]]);
    expect(groupSessions(sessions, [gdynia, archive], 'arch').projects.map((x) => [x.project.name, ids(x.sessions)])).toEqual([['Archive', []]]);
  });

  it('does not change the lists it is given', () => {
    const list = [...sessions];
    const ps = [thesis, gdynia];
    groupSessions(list, ps, 'r');
    expect(list).toEqual(sessions);
    expect(ps).toEqual([thesis, gdynia]);
  });
});

describe('projects', () => {
  it('projectOf: the known project, else none', () => {
    expect(projectOf(gdynia.id, [thesis, gdynia])).toBe(gdynia);
    expect(projectOf('p0000dead', [thesis, gdynia])).toBeNull();
    expect(projectOf(null, [gdynia])).toBeNull();
    expect(projectOf(undefined, [gdynia])).toBeNull();
  });

  it('sorts by name whatever the case', () => {
    expect(sortProjects([thesis, gdynia, archive]).map((p) => p.name)).toEqual(['Archive', 'Port of Gdynia', 'thesis']);
  });

  it('the form: drafted from a project, sent trimmed with empty picks as null', () => {
    expect(draftReady(emptyDraft())).toBe(false);
    const d = draftOf(project('p00000004', 'Docs', { instructions: 'Be brief.', agent: 'researcher' }));
    expect(d).toEqual({ name: 'Docs', folder: '/home/ada/Docs', instructions: 'Be brief.', agent: 'researcher', provider: '' });
    expect(draftReady(d)).toBe(true);
    expect(toNewProject({ name: '  Port of Gdynia ', folder: ' /srv/gdynia ', instructions: '\n', agent: '', provider: 'openai' })).toEqual({
      name: 'Port of Gdynia',
      folder: '/srv/gdynia',
      instructions: '',
      agent: null,
      provider: 'openai',
    });
    expect(draftReady({ ...emptyDraft(), name: 'x', folder: '  ' })).toBe(false);
  });

  it('says plainly what happens', () => {
    expect(chats(1)).toBe('1 chat');
    expect(chats(3)).toBe('3 chats');
    expect(deleteWarning(2)).toBe('Its 2 chats go to the trash; the folder and its files stay.');
    expect(deleteWarning(1)).toBe('Its 1 chat goes to the trash; the folder and its files stay.');
    expect(deleteWarning(0)).toBe('It has no chats; the folder and its files stay.');
    expect(removedText('Port of Gdynia', 2)).toBe('Project “Port of Gdynia” removed; its 2 chats are in the trash.');
    expect(removedText('Port of Gdynia', 1)).toBe('Project “Port of Gdynia” removed; its 1 chat is in the trash.');
    expect(removedText('Port of Gdynia', 0)).toBe('Project “Port of Gdynia” removed.');
  });

  it('previews instructions on one line', () => {
    expect(preview('Answer in\n\nEnglish.  ')).toBe('Answer in English.');
    expect(preview('x'.repeat(200), 20)).toBe(`${'x'.repeat(19)}…`);
    expect(preview(undefined)).toBe('');
  });
});
