// @vitest-environment jsdom
// The question card and the agent picker as the user works them: the answer
// typed and submitted with Enter, the decline button, the picked agent.
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import QuestionCard from './QuestionCard.svelte';
import AgentPicker from './AgentPicker.svelte';
import type { QuestionPart } from '../lib/chat';
import type { AgentInfo } from '../lib/bindings';

let mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = '';
});

function render<P extends Record<string, unknown>>(c: Component<P>, props: P): HTMLElement {
  const target = document.createElement('div');
  document.body.append(target);
  mounted.push(mount(c, { target, props }));
  flushSync();
  return target;
}

const q = (extra: Partial<QuestionPart> = {}): QuestionPart => ({
  kind: 'question',
  sessionId: 'sub_1',
  question: "Which year's budget do you mean?",
  state: 'waiting',
  answer: null,
  settled: false,
  ...extra,
});
const by = (root: HTMLElement, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);

describe('QuestionCard', () => {
  it('typing and Enter (submit) answers with the trimmed text; empty answers are not sent', () => {
    const got: [string, string | null][] = [];
    const root = render(QuestionCard, { part: q(), active: true, onanswer: (id: string, a: string | null) => got.push([id, a]) });
    const input = by(root, 'subagent-answer') as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    expect(root.querySelector(`label[for="${input.id}"]`)?.textContent).toBe('Your answer to the subagent');
    input.form!.requestSubmit();
    expect(got).toEqual([]);
    input.value = '  2026 ';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect((by(root, 'question-submit') as HTMLButtonElement).disabled).toBe(false);
    input.form!.requestSubmit();
    expect(got).toEqual([['sub_1', '2026']]);
  });

  it('"Let the assistant answer" declines with null', () => {
    const got: (string | null)[] = [];
    const root = render(QuestionCard, { part: q(), active: true, onanswer: (_: string, a: string | null) => got.push(a) });
    expect(by(root, 'question-decline')?.textContent).toBe('Let the assistant answer');
    by(root, 'question-decline')!.click();
    expect(got).toEqual([null]);
  });

  it('answered: shows the answer and cannot be answered again', () => {
    const root = render(QuestionCard, { part: q({ state: 'answered', answer: '2026', settled: true }), active: true, onanswer: () => {} });
    expect(by(root, 'subagent-question')?.dataset.state).toBe('answered');
    expect(by(root, 'question-answer')?.textContent).toBe('2026');
    expect(by(root, 'subagent-answer')).toBeNull();
    expect(by(root, 'question-decline')).toBeNull();
  });

  it('a question whose turn is over cannot be answered', () => {
    const root = render(QuestionCard, { part: q({ state: 'closed', settled: true }), active: false, onanswer: () => {} });
    expect(by(root, 'subagent-answer')).toBeNull();
    expect(by(root, 'question-outcome')?.textContent).toMatch(/Not answered/);
  });
});

const agent = (name: string, isDefault: boolean, description: string): AgentInfo => ({
  name,
  description,
  specialisations: [],
  provider: 'local',
  model: 'm',
  toolboxes: [],
  delegable: !isDefault,
  delegates: true,
  maxMessages: null,
  maxIterations: null,
  tokenBudget: null,
  default: isDefault,
  problem: null,
});

describe('AgentPicker', () => {
  const agents = [agent('assistant', true, 'The everyday assistant.'), agent('researcher', false, 'Reads, never writes.')];

  it('lists the agents with their descriptions, the default marked; a pick is reported', () => {
    const picks: string[] = [];
    const root = render(AgentPicker, { agents, value: 'assistant', onpick: (n: string) => picks.push(n) });
    const select = by(root, 'agent-picker') as HTMLSelectElement;
    const options = [...root.querySelectorAll<HTMLOptionElement>('[data-testid="agent-option"]')];
    expect(options.map((o) => [o.dataset.name, o.textContent, o.title])).toEqual([
      ['assistant', 'assistant (default)', 'The everyday assistant.'],
      ['researcher', 'researcher', 'Reads, never writes.'],
    ]);
    expect(select.value).toBe('assistant');
    expect(root.querySelector(`label[for="${select.id}"]`)?.textContent).toBe('Agent');
    expect(select.title).toBe('The everyday assistant.');
    select.value = 'researcher';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    expect(picks).toEqual(['researcher']);
  });
});
