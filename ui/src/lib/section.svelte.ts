// A settings section whose state comes from the Rust side as one status
// object (its settings and how they are applied): loading it, saving it,
// the last error, and "Saved." after a save that went through.
import { toIpcError } from './api';
import type { IpcError } from './bindings';

/** The state of one settings section shown from a status command. */
export class StatusSection<T extends { settings: unknown }> {
  /** The last status (null until the first load). */
  status = $state<T | null>(null);
  /** The last command's error, shown until dismissed or the next command. */
  error = $state<IpcError | null>(null);
  /** A command is running. */
  busy = $state(false);
  /** The last save went through. */
  saved = $state(false);

  /** Runs a command that returns the new status. */
  async run(command: () => Promise<T>): Promise<void> {
    this.busy = true;
    this.error = null;
    try {
      this.status = await command();
    } catch (err) {
      this.error = toIpcError(err);
    } finally {
      this.busy = false;
    }
  }

  /** Saves the settings as edited with `command`. */
  async save(command: (settings: T['settings']) => Promise<T>): Promise<void> {
    if (!this.status) return;
    this.saved = false;
    const settings = $state.snapshot(this.status.settings) as T['settings'];
    await this.run(() => command(settings));
    this.saved = this.error === null;
  }

  /** Runs a command that leaves the status as it is, keeping its error. */
  async act(command: () => Promise<unknown>): Promise<void> {
    this.error = null;
    try {
      await command();
    } catch (err) {
      this.error = toIpcError(err);
    }
  }
}
