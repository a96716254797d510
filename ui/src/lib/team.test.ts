import { describe, expect, it } from 'vitest';
import type { OrchestrationEvent } from './bindings';
import { emptyRun, foldTeam, statusLabel } from './team';

const ev = (e: Partial<OrchestrationEvent> & Pick<OrchestrationEvent, 'stage' | 'phase'>): OrchestrationEvent => ({
  sessionId: 'run-1', ...e,
});

describe('team runs', () => {
  it('follows a plan through work, a review sent back, a revision and the answer', () => {
    const events: OrchestrationEvent[] = [
      ev({ stage: 'planning', phase: 'starting', agent: 'planner' }),
      ev({ stage: 'planning', phase: 'stopped', agent: 'planner', plan: [{ task: 'A', specialisation: 'x' }, { task: 'B', specialisation: 'y' }] }),
      ev({ stage: 'agentExecution', phase: 'starting', agent: 'ada', assignment: 0 }),
      ev({ stage: 'agentExecution', phase: 'stopped', agent: 'ada', assignment: 0, text: 'a1' }),
      ev({ stage: 'agentReview', phase: 'starting', agent: 'rita', assignment: 0, round: 1 }),
      ev({ stage: 'agentReview', phase: 'stopped', agent: 'rita', assignment: 0, round: 1, approved: false, text: 'More.' }),
      ev({ stage: 'agentRevise', phase: 'starting', agent: 'ada', assignment: 0, round: 1 }),
    ];
    let run = events.reduce(foldTeam, emptyRun());
    expect(run.parts.map((p) => p.task)).toEqual(['A', 'B']);
    expect(run.parts[0]!.status).toBe('revising');
    expect(statusLabel(run.parts[0]!)).toBe('ada is revising…');
    expect(run.parts[0]!.reviews).toEqual([{ reviewer: 'rita', approved: false, feedback: 'More.', round: 1 }]);
    expect(run.parts[1]!.status).toBe('waiting');
    run = foldTeam(run, ev({ stage: 'agentRevise', phase: 'stopped', agent: 'ada', assignment: 0, round: 1, text: 'a2' }));
    expect([run.parts[0]!.answer, run.parts[0]!.revisions, run.done]).toEqual(['a2', 1, false]);
    run = foldTeam(run, ev({ stage: 'orchestration', phase: 'stopped', text: 'All done.' }));
    expect([run.done, run.answer, run.error]).toEqual([true, 'All done.', null]);
  });

  it('a failed part and a run that stopped say so', () => {
    let run = foldTeam(emptyRun(), ev({ stage: 'planning', phase: 'stopped', plan: [{ task: 'A', specialisation: 'x' }] }));
    run = foldTeam(run, ev({ stage: 'agentExecution', phase: 'stopped', agent: 'ada', assignment: 0, error: 'Failed("no key")' }));
    expect(statusLabel(run.parts[0]!)).toBe('Failed');
    run = foldTeam(run, ev({ stage: 'orchestration', phase: 'stopped', error: 'cancelled', text: '' }));
    expect([run.done, run.error]).toEqual([true, 'cancelled']);
  });
});
