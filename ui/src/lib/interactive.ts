// `performance.mark('app-interactive')` once the composer is mounted and
// enabled (first time only). The start-up benchmark reads this mark the same
// way for Baton and for the minimal-window baseline.
let done = false;

export function markInteractive(): void {
  if (done) return;
  done = true;
  try {
    performance.mark('app-interactive');
  } catch {
    /* no User Timing: nothing to mark */
  }
}
