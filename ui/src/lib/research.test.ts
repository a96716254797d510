import { describe, expect, it } from 'vitest';
import type { ResearchEvent } from './bindings';
import { claimsKept, emptyResearch, foldResearch, stageLabel } from './research';

describe('research jobs', () => {
  it('follows the stages, the questions, each source read or failed, and the review', () => {
    const events: ResearchEvent[] = [
      { kind: 'stage', stage: 'planning' },
      { kind: 'planned', questions: ['a?', 'b?'] },
      { kind: 'stage', stage: 'searching' },
      { kind: 'searched', query: 'a?', found: 5, failed: null },
      { kind: 'searched', query: 'b?', found: 0, failed: 'Brave Search refused the key' },
      { kind: 'stage', stage: 'reading' },
      { kind: 'sourceRead', url: 'https://x.test/1', title: 'One', kept: 2, dropped: 1 },
      { kind: 'sourceFailed', url: 'https://x.test/2', why: 'did not open' },
      { kind: 'sourceRead', url: 'https://x.test/3', title: 'Three', kept: 1, dropped: 0 },
      { kind: 'stopped', why: 'the time limit (60 s) was reached' },
    ];
    let view = events.reduce(foldResearch, emptyResearch());
    expect(view.questions).toEqual(['a?', 'b?']);
    expect(view.searches.map((s) => s.failed)).toEqual([null, 'Brave Search refused the key']);
    expect(view.sources.map((s) => [s.title, s.read, s.why])).toEqual([
      ['One', true, null],
      ['https://x.test/2', false, 'did not open'],
      ['Three', true, null],
    ]);
    expect(claimsKept(view)).toBe(3);
    expect(view.stopped).toBe('the time limit (60 s) was reached');
    expect(stageLabel(view.stage)).toBe('Reading the sources…');
    view = foldResearch(view, { kind: 'reviewed', kept: 2, dropped: 1 });
    expect(view.unsupported).toBe(1);
    expect(stageLabel(null)).toBe('Starting…');
  });
});
