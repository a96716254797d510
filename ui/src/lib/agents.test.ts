import { describe, expect, it } from 'vitest';
import type { AgentInfo } from './bindings';
import { agentHint, agentLabel, defaultAgent, pickAgent } from './agents';

const agent = (name: string, extra: Partial<AgentInfo> = {}): AgentInfo => ({
  name,
  description: `${name} does things`,
  specialisations: [],
  provider: 'local',
  model: 'm',
  toolboxes: [],
  delegable: false,
  delegates: true,
  maxMessages: null,
  maxIterations: null,
  tokenBudget: null,
  default: false,
  problem: null,
  ...extra,
});

describe('agent picker', () => {
  const list = [agent('assistant', { default: true }), agent('researcher', { delegable: true }), agent('broken', { problem: 'unknown provider `x`' })];

  it('the default agent is the one marked, else the first usable one', () => {
    expect(defaultAgent(list)?.name).toBe('assistant');
    expect(defaultAgent([list[2]!, list[1]!])?.name).toBe('researcher');
    expect(defaultAgent([])).toBeNull();
  });

  it("shows a conversation's agent when it is in the list, else the default", () => {
    expect(pickAgent(list, 'researcher')).toBe('researcher');
    expect(pickAgent(list, null)).toBe('assistant');
    expect(pickAgent(list, 'gone')).toBe('assistant');
    // Before the list is in, the wanted one is kept.
    expect(pickAgent([], 'researcher')).toBe('researcher');
    expect(pickAgent([], null)).toBeNull();
  });

  it('marks the default and says what keeps an agent from working', () => {
    expect(agentLabel(list[0]!)).toBe('assistant (default)');
    expect(agentLabel(list[1]!)).toBe('researcher');
    expect(agentHint(list[1]!)).toBe('researcher does things');
    expect(agentHint(list[2]!)).toBe('broken does things\nUnavailable: unknown provider `x`');
  });
});
