// @ts-check
// pages/asking.js — what the page controllers that ask the server share (no DOM): a request
// made with the controller busy meanwhile, and a refusal kept in the player's words.

/** Run `fn` (requests to the server) with `ctrl.busy` set and `ctrl.error` cleared, the page
 *  redrawn before and after; a refusal becomes `ctrl.error`, in the words `refusal` gives it.
 *  @param {{busy: boolean, error: string, deps: {changed: () => void}}} ctrl
 *  @param {() => Promise<void>} fn @param {(err: any) => string} refusal */
export async function asking(ctrl, fn, refusal) {
  ctrl.busy = true;
  ctrl.error = "";
  ctrl.deps.changed();
  try {
    await fn();
  } catch (err) {
    ctrl.error = refusal(err);
  } finally {
    ctrl.busy = false;
    ctrl.deps.changed();
  }
}
