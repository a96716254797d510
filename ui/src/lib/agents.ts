// The agent picker's choices: pure helpers over the `listAgents` list.
import type { AgentView } from './bindings';

/** The agent used when none is named (`isDefault`), else the first usable one. */
export function defaultAgent(agents: readonly AgentView[]): AgentView | null {
  return agents.find((a) => a.isDefault) ?? agents.find((a) => !a.problem) ?? agents[0] ?? null;
}

/**
 * The agent to show as picked: `wanted` when it is in the list (a saved
 * conversation's agent, or the current pick), else the default one.
 */
export function pickAgent(agents: readonly AgentView[], wanted: string | null): string | null {
  if (wanted !== null && agents.some((a) => a.name === wanted)) return wanted;
  return defaultAgent(agents)?.name ?? wanted;
}

/** The option's label: its name, the default one marked. */
export function agentLabel(a: AgentView): string {
  return a.isDefault ? `${a.name} (default)` : a.name;
}

/** The option's hint: what it is for, and what keeps it from working. */
export function agentHint(a: AgentView): string {
  return a.problem ? `${a.description}\nUnavailable: ${a.problem}` : a.description;
}
