// @ts-check
// ui.js — small DOM helpers shared by the pages: element building (never innerHTML with
// data from the server), toasts, the screen-reader announcer, dialogs and sounds.

import { t } from "./i18n.js";

/** h("button", {class: "primary", onclick}, "text", child, ...) */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** The paths of the replay controls' icons (24×24), for `icon()`. */
export const ICONS = {
  first: "M6 5h2v14H6zM20 5v14L9 12z",
  prev: "M17 5v14L6 12z",
  next: "M7 5v14l11-7z",
  last: "M16 5h2v14h-2zM4 5v14l11-7z",
};

/** An inline SVG icon of one path. */
export function icon(path) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", path);
  svg.append(p);
  return svg;
}

export function toast(message, { error = false, ms = 3500 } = {}) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const node = h("div", { class: `toast${error ? " error" : ""}` }, message);
  box.append(node);
  setTimeout(() => node.remove(), ms);
}

/** A download link (.mat, SGF) that says so when the server cannot give the file, instead
 *  of saving an error page or doing nothing. */
export function downloadLink(href, filename, label) {
  const a = h("a", { class: "button", href, download: filename, "data-download": filename.split(".").pop() }, label);
  a.addEventListener("click", async (e) => {
    e.preventDefault();
    try {
      const response = await fetch(href, { credentials: "same-origin" });
      if (!response.ok) {
        let message = `HTTP ${response.status}`;
        try {
          const data = await response.json();
          if (data?.detail?.message) message = data.detail.message;
        } catch { /* not JSON */ }
        throw new Error(message);
      }
      const url = URL.createObjectURL(await response.blob());
      const save = h("a", { href: url, download: filename, hidden: true });
      document.body.append(save);
      save.click();
      save.remove();
      setTimeout(() => URL.revokeObjectURL(url), 30_000);
    } catch (err) {
      toast(t("error.download", { name: filename, message: err.message }), { error: true, ms: 6000 });
    }
  });
  return a;
}

export function announce(message) {
  const node = document.getElementById("announcer");
  if (!node) return;
  node.textContent = "";
  // a fresh text node is read even when it repeats the last one
  setTimeout(() => { node.textContent = message; }, 30);
}

/** A modal dialog; resolves with the value of the button pressed (or null on Escape). */
export function ask({ title, body = [], buttons, className = "" }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: className, "aria-labelledby": "dlg-title" });
    const actions = h("div", { class: "actions" });
    for (const b of buttons) {
      actions.append(h("button", {
        type: "button", class: b.class || "", "data-value": b.value,
        onclick: () => { dialog.close(b.value); },
      }, b.label));
    }
    dialog.append(h("h2", { id: "dlg-title" }, title), ...(Array.isArray(body) ? body : [body]), actions);
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue || null;
      dialog.remove();
      resolve(value === "" ? null : value);
    });
    document.body.append(dialog);
    dialog.showModal();
    const preferred = actions.querySelector("button.primary") || actions.querySelector("button");
    preferred?.focus();
  });
}

export function copyText(text) {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text).then(() => true, () => false);
  return Promise.resolve(false);
}

// -- sounds: synthesised with Web Audio, no files ----------------------------------------

let audio = null;
let soundOn = true;

export function setSound(on) {
  soundOn = !!on;
}

function context() {
  if (!audio) {
    const AC = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!AC) return null;
    audio = new AC();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

function tone(freq, start, length, { type = "sine", gain = 0.15 } = {}) {
  const ac = context();
  if (!ac) return;
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  amp.gain.setValueAtTime(0, ac.currentTime + start);
  amp.gain.linearRampToValueAtTime(gain, ac.currentTime + start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, ac.currentTime + start + length);
  osc.connect(amp).connect(ac.destination);
  osc.start(ac.currentTime + start);
  osc.stop(ac.currentTime + start + length + 0.02);
}

function noise(start, length, gain = 0.2) {
  const ac = context();
  if (!ac) return;
  const frames = Math.floor(ac.sampleRate * length);
  const buffer = ac.createBuffer(1, frames, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 2;
  const src = ac.createBufferSource();
  const amp = ac.createGain();
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  amp.gain.value = gain;
  src.buffer = buffer;
  src.connect(filter).connect(amp).connect(ac.destination);
  src.start(ac.currentTime + start);
}

const SOUNDS = {
  dice() { noise(0, 0.07); noise(0.09, 0.06); noise(0.17, 0.05, 0.12); },
  checker() { tone(180, 0, 0.08, { type: "triangle", gain: 0.25 }); noise(0, 0.03, 0.1); },
  turn() { tone(660, 0, 0.12); tone(880, 0.12, 0.16); },
  alarm() { tone(1040, 0, 0.12, { type: "square", gain: 0.08 }); },
  end() { tone(523, 0, 0.15); tone(659, 0.15, 0.15); tone(784, 0.3, 0.3); },
  notify() { tone(784, 0, 0.12); tone(1047, 0.14, 0.12); tone(784, 0.28, 0.12); },
};

/** sound.dice() and so on; `played` counts what was played (the browser tests read it). */
export const sound = { played: {} };
for (const [name, play] of Object.entries(SOUNDS)) {
  sound[name] = () => {
    if (!soundOn) return;
    sound.played[name] = (sound.played[name] || 0) + 1;
    try { play(); } catch { /* no audio device: silence */ }
  };
}

export function fmtDate(seconds) {
  if (!seconds) return "";
  return new Date(seconds * 1000).toLocaleString(document.documentElement.lang || undefined, {
    dateStyle: "medium", timeStyle: "short",
  });
}

export function kindText(info) {
  if (!info) return "";
  if (info.kind === "money") return t("game.money");
  if (info.kind === "single") return t("game.single");
  return t("game.match_to", { count: info.length });
}
