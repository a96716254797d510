// What every area's tests share: the registry, selectors and the chat helpers.
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
