// Marks `app-interactive` once the composer textarea is in the DOM, the same
// User Timing mark Baton's UI sets when its composer is mounted and enabled.
// (External file: the page's CSP is default-src 'self', no inline script.)
function markInteractive() {
  if (performance.getEntriesByName('app-interactive').length) return;
  if (document.querySelector('textarea[data-testid="composer"]')) performance.mark('app-interactive');
}
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', markInteractive, { once: true });
else markInteractive();
