// Team mode's view of a run: each stage event folded into the plan's parts
// (who works on each, its answer, its reviews), then the answer. Pure
// functions; no DOM.
import type { OrchestrationEvent } from './bindings';
import { t } from './i18n.svelte';

export type PartStatus = 'waiting' | 'working' | 'reviewing' | 'revising' | 'done' | 'failed';

export interface TeamReviewView {
  reviewer: string;
  approved: boolean;
  feedback: string;
  round: number;
}

export interface TeamPart {
  task: string;
  specialisation: string;
  agent: string | null;
  status: PartStatus;
  answer: string | null;
  reviews: TeamReviewView[];
  revisions: number;
}

export interface TeamRun {
  planner: string | null;
  planning: boolean;
  parts: TeamPart[];
  synthesizer: string | null;
  answer: string | null;
  error: string | null;
  done: boolean;
}

export const emptyRun = (): TeamRun => ({
  planner: null,
  planning: false,
  parts: [],
  synthesizer: null,
  answer: null,
  error: null,
  done: false,
});

/** `run` with `e` applied (a new object; the part it touches is replaced). */
export function foldTeam(run: TeamRun, e: OrchestrationEvent): TeamRun {
  const next: TeamRun = { ...run, parts: run.parts.slice() };
  const i = e.assignment ?? -1;
  const part = next.parts[i];
  const set = (p: Partial<TeamPart>) => {
    if (part) next.parts[i] = { ...part, ...p };
  };
  const starting = e.phase === 'starting';
  switch (e.stage) {
    case 'planning':
      next.planner = e.agent ?? null;
      next.planning = starting;
      if (!starting && e.plan) {
        next.parts = e.plan.map((a) => ({
          task: a.task,
          specialisation: a.specialisation ?? a.specialization ?? '',
          agent: null,
          status: 'waiting',
          answer: null,
          reviews: [],
          revisions: 0,
        }));
      }
      break;
    case 'agentExecution':
      if (starting) set({ agent: e.agent ?? null, status: 'working' });
      else set({ status: e.error ? 'failed' : 'done', answer: e.text ?? part?.answer ?? null });
      break;
    case 'agentReview':
      if (starting) set({ status: 'reviewing' });
      else if (part) {
        const review = { reviewer: e.agent ?? '', approved: e.approved ?? true, feedback: e.text ?? '', round: e.round ?? 1 };
        set({ status: 'done', reviews: [...part.reviews, review] });
      }
      break;
    case 'agentRevise':
      if (starting) set({ status: 'revising' });
      else set({ status: 'done', answer: e.text ?? part?.answer ?? null, revisions: e.round ?? (part?.revisions ?? 0) + 1 });
      break;
    case 'synthesis':
      next.synthesizer = e.agent ?? null;
      break;
    case 'orchestration':
      if (!starting) {
        next.done = true;
        next.answer = e.text ?? null;
        next.error = e.error ?? null;
      }
      break;
    case 'agentTraining':
      break;
  }
  return next;
}

/** A part's status in words. */
export function statusLabel(p: TeamPart): string {
  switch (p.status) {
    case 'waiting':
      return t('panels.team.status.waiting');
    case 'working':
      return t('panels.team.status.working', { agent: p.agent });
    case 'reviewing':
      return t('panels.team.status.reviewing');
    case 'revising':
      return t('panels.team.status.revising', { agent: p.agent });
    case 'failed':
      return t('panels.team.status.failed');
    case 'done':
      return p.reviews.length === 0 || p.reviews[p.reviews.length - 1]!.approved ? t('panels.team.status.done') : t('panels.team.status.doneNotApproved');
  }
}
