// What every area's tests share: the registry, selectors and the chat helpers.
import { readFileSync } from 'node:fs';
export const tests = [];
export const test = (name, run, opts = {}) => tests.push({ name, run, ...opts });

export const sel = (id) => `[data-testid="${id}"]`;
export const lastAssistant = `${sel('message')}[data-role="assistant"]:last-of-type`;

export async function send(page, text) {
  await page.fill(sel('composer'), text);
  await page.press(sel('composer'), 'Enter');
}

export async function waitDone(page, timeout = 15000) {
  await page.waitForFunction(
    () => {
      const ms = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
      const m = ms[ms.length - 1];
      return m && m.getAttribute('data-streaming') === 'false' && document.querySelector('[data-testid="send"]');
    },
    null,
    { timeout },
  );
}

// axe-core, put into the page to check it (the page's own CSP does not
// apply to what the test evaluates).
const AXE = readFileSync(new URL('../../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/**
 * Runs axe-core over the page as it is now (`what` names the state in the
 * failure): fails on any serious or critical violation, listing each rule,
 * its help text and the elements.
 */
export async function checkA11y(page, what) {
  await page.evaluate((src) => {
    if (!window.axe) (0, eval)(src);
  }, AXE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help}\n      ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n      ')}`);
  });
  if (violations.length) throw new Error(`accessibility, ${what}:\n    ${violations.join('\n    ')}`);
}
