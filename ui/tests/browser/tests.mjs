// The browser tests of the UI on the mock backend, one file per area
// (areas/), run in this order by run.mjs.
import './areas/chat.mjs';
import './areas/subagents.mjs';
import './areas/confirmations.mjs';
import './areas/cards.mjs';
import './areas/composer.mjs';
import './areas/branches.mjs';
import './areas/settings.mjs';
import './areas/team.mjs';
import './areas/research.mjs';
import './areas/sessions.mjs';
import './areas/projects.mjs';
import './areas/schedule.mjs';
import './areas/desktop.mjs';
import './areas/a11y.mjs';
import './areas/voice.mjs';
import './areas/perf.mjs';
import './areas/models.mjs';
import './areas/languages.mjs';

export { tests } from './areas/common.mjs';
