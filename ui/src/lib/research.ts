// Research mode's view of a job: each event folded into the stage, the
// search questions, and each source with what was kept from it. Pure
// functions; no DOM.
import type { ResearchEvent, ResearchStage } from './bindings';
import { t, type MessageKey } from './i18n.svelte';

export interface ResearchSourceView {
  url: string;
  title: string;
  read: boolean;
  kept: number;
  dropped: number;
  why: string | null;
}

export interface ResearchSearchView {
  query: string;
  found: number;
  failed: string | null;
}

export interface ResearchView {
  stage: ResearchStage | null;
  questions: string[];
  searches: ResearchSearchView[];
  sources: ResearchSourceView[];
  stopped: string | null;
  unsupported: number | null;
}

export const emptyResearch = (): ResearchView => ({
  stage: null,
  questions: [],
  searches: [],
  sources: [],
  stopped: null,
  unsupported: null,
});

/** `view` with `e` applied (a new object). */
export function foldResearch(view: ResearchView, e: ResearchEvent): ResearchView {
  switch (e.kind) {
    case 'stage':
      return { ...view, stage: e.stage };
    case 'planned':
      return { ...view, questions: e.questions };
    case 'searched':
      return { ...view, searches: [...view.searches, { query: e.query, found: e.found, failed: e.failed }] };
    case 'sourceRead':
      return {
        ...view,
        sources: [...view.sources, { url: e.url, title: e.title, read: true, kept: e.kept, dropped: e.dropped, why: null }],
      };
    case 'sourceFailed':
      return { ...view, sources: [...view.sources, { url: e.url, title: e.url, read: false, kept: 0, dropped: 0, why: e.why }] };
    case 'stopped':
      return { ...view, stopped: e.why };
    case 'reviewed':
      return { ...view, unsupported: e.dropped };
  }
}

/** Each stage's words in the catalogs. */
const STAGES = {
  planning: 'research.stage.planning',
  searching: 'research.stage.searching',
  reading: 'research.stage.reading',
  reviewing: 'research.stage.reviewing',
  writing: 'research.stage.writing',
} as const satisfies Record<ResearchStage, MessageKey>;

/** What the job is doing, in words. */
export function stageLabel(stage: ResearchStage | null): string {
  return t(stage === null ? 'research.stage.starting' : STAGES[stage]);
}

/** Claims kept so far, over every source read. */
export const claimsKept = (view: ResearchView): number => view.sources.reduce((n, s) => n + s.kept, 0);
