// The agent picker's choices: pure helpers over the `listAgents` list.
import type { AgentInfo } from './bindings';
import { t } from './i18n.svelte';

/** The agent used when none is named (`default`), else the first usable one. */
export function defaultAgent(agents: readonly AgentInfo[]): AgentInfo | null {
  return agents.find((a) => a.default) ?? agents.find((a) => !a.problem) ?? agents[0] ?? null;
}

/**
 * The agent to show as picked: `wanted` when it is in the list (a saved
 * conversation's agent, or the current pick), else the default one.
 */
export function pickAgent(agents: readonly AgentInfo[], wanted: string | null): string | null {
  if (wanted !== null && agents.some((a) => a.name === wanted)) return wanted;
  return defaultAgent(agents)?.name ?? wanted;
}

/** The option's label: its name, the default one marked. */
export function agentLabel(a: AgentInfo): string {
  return a.default ? t('chat.agent.default', { name: a.name }) : a.name;
}

/** The option's hint: what it is for, and what keeps it from working. */
export function agentHint(a: AgentInfo): string {
  return a.problem ? `${a.description}\n${t('chat.agent.unavailable', { problem: a.problem })}` : a.description;
}
