// @ts-check
// attention.js — a player called back to a tab they are not looking at (their match is
// ready, it is their turn, a challenge came): the page's title says why and a sound plays;
// the page's own title (pageTitle) comes back once the tab is seen again. Nothing happens while the
// tab is in view: the page itself shows it.

import { sound } from "./ui.js";

/** @type {string | null} the page's own title while ours stands in for it */
let saved = null;

/** Set the page's own title (every page sets it through here): shown at once, or kept for
 *  when the tab is seen again while a call-back stands in for it. @param {string} text */
export function pageTitle(text) {
  if (saved !== null) saved = text;
  else document.title = text;
}

/** Call the player back with `text`, if the tab is hidden; whether it was.
 *  @param {string} text */
export function callBack(text) {
  if (!document.hidden) return false;
  if (saved === null) saved = document.title;
  document.title = `● ${text}`;
  sound.notify();
  return true;
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && saved !== null) {
      document.title = saved;
      saved = null;
    }
  });
}
