// @ts-check
// round/view/controls.js — the turn's buttons under the board (roll, double, undo, done,
// resign, abandon, flip, switch side, sound, hint) and the options menu: each button shown
// and enabled from the controller, each a controller action (or the page's, for options).

import { t } from "../../i18n.js";
import { h } from "../../ui.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */
/** The page's part: toggle an option, open the resign or abandon dialog.
 *  @typedef {{toggleOption: (key: string) => void, resign: () => void, abandon: () => void}} PageActions */

/** The toolbar and its buttons by name. @param {RoundCtrl} ctrl @param {PageActions} page */
export function buildControls(ctrl, page) {
  const bar = h("div", { class: "controls", role: "toolbar", "aria-label": t("match.controls") });
  /** @type {Record<string, HTMLButtonElement>} */
  const buttons = {};
  /** @param {string} name @param {string} label @param {() => void} onclick */
  const button = (name, label, onclick, cls = "") => {
    buttons[name] = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: cls, "data-act": name, onclick }, label));
    bar.append(buttons[name]);
  };
  button("roll", t("match.roll"), () => ctrl.roll(), "primary");
  button("double", t("match.double"), () => ctrl.double());
  button("undo", t("match.undo"), () => ctrl.undo());
  button("confirm", t("match.confirm"), () => ctrl.confirm(), "primary");
  button("resign", t("match.resign"), () => page.resign());
  button("abandon", t("match.abandon"), () => page.abandon(), "danger");
  button("flip", t("match.flip"), () => page.toggleOption("flip"));
  button("side", t("match.switch_side"), () => ctrl.switchSide());
  button("sound", t("match.sound"), () => page.toggleOption("sound"));
  button("hint", t("hint.button"), () => ctrl.hints.ask());
  return { bar, buttons };
}

/** Which buttons show and which may be pressed now (none of the turn's while an action is
 *  on its way). @param {Record<string, HTMLButtonElement>} buttons @param {RoundCtrl} ctrl */
export function drawControls(buttons, ctrl) {
  const g = ctrl.game;
  const o = ctrl.options();
  /** @param {string} name @param {boolean} visible */
  const show = (name, visible, enabled = true) => {
    const b = buttons[name];
    b.hidden = !visible;
    b.disabled = !enabled || (ctrl.busy && ["roll", "double", "undo", "confirm", "resign"].includes(name));
  };
  const player = ctrl.isPlayer && ctrl.isLive();
  const myMove = player && ctrl.myTurn && ctrl.phase === "moving";
  show("roll", player && !myMove, ctrl.canRoll());
  show("double", player && !myMove && !!g?.cube?.enabled, ctrl.canDouble());
  show("undo", myMove, ctrl.canUndo());
  show("confirm", myMove && (!!o.confirm_turn || ctrl.canConfirm()), ctrl.canConfirm());
  show("resign", player, ctrl.canResign());
  show("abandon", player, true);
  show("flip", true);
  show("side", !ctrl.isPlayer && !!g);
  show("sound", true);
  show("hint", player && ctrl.hints.allowed(), ctrl.hints.request() !== null && !ctrl.hints.shown?.pending);
  buttons.flip.setAttribute("aria-pressed", String(!!o.flip));
  buttons.sound.setAttribute("aria-pressed", String(o.sound !== false));
  buttons.sound.textContent = o.sound !== false ? t("match.sound_on") : t("match.sound_off");
}

/** The options menu (confirm, auto-roll, auto bear-off, taps, flip, numbering, sound,
 *  graphics); `save` stores a change. @param {Record<string, any>} o the options
 *  @param {(change: Record<string, unknown>) => void} save */
export function buildOptionsMenu(o, save) {
  const details = h("details", { class: "options-menu" }, h("summary", {}, t("options.title")));
  /** @param {string} key @param {string} label @param {string} [note] */
  const check = (key, label, note) => {
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", "data-option": key, checked: !!o[key], onchange: () => save({ [key]: input.checked }) }));
    return h("label", { class: "check" }, input, h("span", {}, label, note ? h("span", { class: "muted small" }, ` ${note}`) : null));
  };
  const quality = /** @type {HTMLSelectElement} */ (h("select", { "data-option": "graphics", onchange: () => save({ graphics: quality.value }) },
    h("option", { value: "high", selected: o.graphics !== "low" }, t("options.graphics_high")),
    h("option", { value: "low", selected: o.graphics === "low" }, t("options.graphics_low"))));
  details.append(h("div", { class: "stack" },
    check("confirm_turn", t("options.confirm_turn")),
    check("auto_roll", t("options.auto_roll"), t("options.auto_roll_note")),
    check("auto_bearoff", t("options.auto_bearoff")),
    check("tap_longest", t("options.tap_longest")),
    check("flip", t("options.flip")),
    check("numbering", t("options.numbering")),
    check("sound", t("options.sound")),
    h("label", { class: "field" }, h("span", {}, t("options.graphics")), quality)));
  return h("section", { class: "card" }, details);
}

/** The menu's inputs follow the options (changed elsewhere: a shortcut, a button).
 *  @param {HTMLElement} menu @param {Record<string, any>} o */
export function syncOptionsMenu(menu, o) {
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (menu.querySelectorAll("[data-option]"))) {
    const value = o[/** @type {string} */ (input.dataset.option)];
    if (input.type === "checkbox") input.checked = !!value;
    else input.value = value;
  }
}
