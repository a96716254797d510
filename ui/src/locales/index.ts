// The message catalogs: one JSON file per area of the UI and language.
// English is the source; every other language has exactly its keys
// (`i18n.test.ts` fails on a missing, extra or unused key). The desktop
// shell reads `shell.json` for the tray and notifications.

import en_common from './en/common.json';
import en_shell from './en/shell.json';
import en_app from './en/app.json';
import en_chat from './en/chat.json';
import en_cards from './en/cards.json';
import en_sidebar from './en/sidebar.json';
import en_quick from './en/quick.json';
import en_talk from './en/talk.json';
import en_voice from './en/voice.json';
import en_panels from './en/panels.json';
import en_settings from './en/settings.json';
import en_models from './en/models.json';
import en_connections from './en/connections.json';
import en_projects from './en/projects.json';
import en_schedule from './en/schedule.json';
import en_memory from './en/memory.json';
import en_conversations from './en/conversations.json';
import en_desktop from './en/desktop.json';
import en_format from './en/format.json';
import en_research from './en/research.json';
import de_common from './de/common.json';
import de_shell from './de/shell.json';
import de_app from './de/app.json';
import de_chat from './de/chat.json';
import de_cards from './de/cards.json';
import de_sidebar from './de/sidebar.json';
import de_quick from './de/quick.json';
import de_talk from './de/talk.json';
import de_voice from './de/voice.json';
import de_panels from './de/panels.json';
import de_settings from './de/settings.json';
import de_models from './de/models.json';
import de_connections from './de/connections.json';
import de_projects from './de/projects.json';
import de_schedule from './de/schedule.json';
import de_memory from './de/memory.json';
import de_conversations from './de/conversations.json';
import de_desktop from './de/desktop.json';
import de_format from './de/format.json';
import de_research from './de/research.json';
import fr_common from './fr/common.json';
import fr_shell from './fr/shell.json';
import fr_app from './fr/app.json';
import fr_chat from './fr/chat.json';
import fr_cards from './fr/cards.json';
import fr_sidebar from './fr/sidebar.json';
import fr_quick from './fr/quick.json';
import fr_talk from './fr/talk.json';
import fr_voice from './fr/voice.json';
import fr_panels from './fr/panels.json';
import fr_settings from './fr/settings.json';
import fr_models from './fr/models.json';
import fr_connections from './fr/connections.json';
import fr_projects from './fr/projects.json';
import fr_schedule from './fr/schedule.json';
import fr_memory from './fr/memory.json';
import fr_conversations from './fr/conversations.json';
import fr_desktop from './fr/desktop.json';
import fr_format from './fr/format.json';
import fr_research from './fr/research.json';
import es_common from './es/common.json';
import es_shell from './es/shell.json';
import es_app from './es/app.json';
import es_chat from './es/chat.json';
import es_cards from './es/cards.json';
import es_sidebar from './es/sidebar.json';
import es_quick from './es/quick.json';
import es_talk from './es/talk.json';
import es_voice from './es/voice.json';
import es_panels from './es/panels.json';
import es_settings from './es/settings.json';
import es_models from './es/models.json';
import es_connections from './es/connections.json';
import es_projects from './es/projects.json';
import es_schedule from './es/schedule.json';
import es_memory from './es/memory.json';
import es_conversations from './es/conversations.json';
import es_desktop from './es/desktop.json';
import es_format from './es/format.json';
import es_research from './es/research.json';

export const en = {
  common: en_common,
  shell: en_shell,
  app: en_app,
  chat: en_chat,
  cards: en_cards,
  sidebar: en_sidebar,
  quick: en_quick,
  talk: en_talk,
  voice: en_voice,
  panels: en_panels,
  settings: en_settings,
  models: en_models,
  connections: en_connections,
  projects: en_projects,
  schedule: en_schedule,
  memory: en_memory,
  conversations: en_conversations,
  desktop: en_desktop,
  format: en_format,
  research: en_research,
};

/** A catalog: every area English has, with the same keys. */
export type Catalog = typeof en;

const de: Catalog = {
  common: de_common,
  shell: de_shell,
  app: de_app,
  chat: de_chat,
  cards: de_cards,
  sidebar: de_sidebar,
  quick: de_quick,
  talk: de_talk,
  voice: de_voice,
  panels: de_panels,
  settings: de_settings,
  models: de_models,
  connections: de_connections,
  projects: de_projects,
  schedule: de_schedule,
  memory: de_memory,
  conversations: de_conversations,
  desktop: de_desktop,
  format: de_format,
  research: de_research,
};

const fr: Catalog = {
  common: fr_common,
  shell: fr_shell,
  app: fr_app,
  chat: fr_chat,
  cards: fr_cards,
  sidebar: fr_sidebar,
  quick: fr_quick,
  talk: fr_talk,
  voice: fr_voice,
  panels: fr_panels,
  settings: fr_settings,
  models: fr_models,
  connections: fr_connections,
  projects: fr_projects,
  schedule: fr_schedule,
  memory: fr_memory,
  conversations: fr_conversations,
  desktop: fr_desktop,
  format: fr_format,
  research: fr_research,
};

const es: Catalog = {
  common: es_common,
  shell: es_shell,
  app: es_app,
  chat: es_chat,
  cards: es_cards,
  sidebar: es_sidebar,
  quick: es_quick,
  talk: es_talk,
  voice: es_voice,
  panels: es_panels,
  settings: es_settings,
  models: es_models,
  connections: es_connections,
  projects: es_projects,
  schedule: es_schedule,
  memory: es_memory,
  conversations: es_conversations,
  desktop: es_desktop,
  format: es_format,
  research: es_research,
};

/** Every catalog by its language's code. */
export const catalogs = { en, de, fr, es } as const;
