// @ts-check
// pages/tournament.js — one tournament (#/tournaments/ID, #/tournament/ID?key=KEY as a
// private one's invite link writes it): its name, settings and rules as the server applies
// them (tournaments/pairing.py), its state, Register / Withdraw, Start and the server's bots
// for its organiser, the knockout bracket (a column a round, the winner marked, each match
// linked) or the standings (Swiss: points, Buchholz, Sonneborn-Berger; arena: points,
// streak), the matches in play, the final results and results.csv, and its chat (the
// players write, everyone who sees it reads). Read again every few seconds while it
// registers or runs (the timers end with the page); a player entered follows the lobby's
// socket messages, so that a round pairing them opens their match.

import { callBack, pageTitle } from "../attention.js";
import { t } from "../i18n.js";
import { api } from "../net.js";
import { chatAdded, REFRESH_MS, TournamentCtrl } from "./tournaments/ctrl.js";
import { settingsText, stateText } from "./tournaments.js";
import { Page, select } from "./page.js";
import { announce, ask, downloadLink, fmtDate, h, toast } from "../ui.js";

/** @typedef {import("./tournaments/ctrl.js").Slot} Slot */

export class TournamentPage extends Page {
  /** @param {any} app @param {string} arg the route's `ID[?key=KEY]` */
  constructor(app, arg) {
    super(app);
    this.ctrl = new TournamentCtrl(arg, { api, me: () => this.app.me, changed: () => this.show() });
    this.body = h("div", { class: "stack" }, h("p", { class: "muted" }, t("common.loading")));
    this.following = false;
    /** @type {string | undefined} the state last said */
    this.news = undefined;
    /** @type {string[]} the keys of the chat's lines drawn (ctrl.js's chatAdded) */
    this.chatKeys = [];
    this.chatEl = this.chatSection();
  }

  mount(main) {
    this.title = h("h1", {}, t("tournament.title"));
    main.replaceChildren(this.title, this.body, this.chatEl);
    this.onPaired = (/** @type {any} */ e) => this.paired(e.detail);
    this.app.socket.addEventListener("paired", this.onPaired);
    this.ctrl.load();
    this.every(REFRESH_MS, () => { if (this.ctrl.live) this.ctrl.load(); });
  }

  unmount() {
    super.unmount();
    this.app.socket.removeEventListener("paired", this.onPaired);
    this.follow(false);
  }

  /** Follow the lobby's messages (`paired`) while entered. @param {boolean} on */
  follow(on) {
    if (on === this.following) return;
    this.following = on;
    this.app.socket.followLobby(on);
  }

  /** A round paired this player: their match opens. @param {string} match */
  async paired(match) {
    if (this.app.page !== this) return;
    await this.ctrl.load();
    this.app.navigate(`#/match/${match}`);
    callBack(t("attention.match_ready"));
  }

  show() {
    const c = this.ctrl;
    const tm = c.tournament;
    this.drawChat();
    if (!tm) {
      if (c.error) this.body.replaceChildren(h("p", { class: "error-text", role: "alert" }, c.error));
      return;
    }
    if (c.error) toast(c.error, { error: true });
    c.error = "";
    this.follow(c.entered && c.live);
    // the body is drawn anew: a change of state, round or winner is said by the page's
    // live region (ui.js's announce), not by a region made again with it
    const news = [stateText(tm), tm.state === "running" && tm.format !== "arena" ? t("tournament.round_n", { round: tm.round }) : "",
      c.champion ? t("tournament.champion", { name: c.champion }) : ""].filter(Boolean).join(" · ");
    if (this.news !== undefined && news !== this.news) announce(news);
    this.news = news;
    pageTitle(tm.name);
    this.title.textContent = tm.name;
    const focused = /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.act;
    this.body.replaceChildren(...[
      h("div", { class: "grid" }, this.summary(), this.rules()),
      this.playing(),
      tm.format === "knockout" ? this.bracket() : null,
      tm.format !== "knockout" || tm.state === "finished" ? this.standings() : null,
      tm.format === "swiss" ? this.swissRounds() : null,
      this.entries()].filter((part) => part !== null));
    if (focused) /** @type {HTMLElement | null} */ (this.body.querySelector(`[data-act="${focused}"]`))?.focus();
  }

  /** The chat: made once, out of the body drawn anew, so that a line being typed and the
   *  lines read out by the live region stay. */
  chatSection() {
    this.chatLines = h("ol", { class: "chat-lines tournament-chat", role: "log", "aria-live": "polite", "aria-labelledby": "t-chat" });
    this.chatEmpty = h("p", { class: "empty" }, t("tournament.chat_empty"));
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", maxlength: 300, required: true,
      "aria-label": t("match.chat_message"), "data-act": "chat-text" }));
    this.chatForm = h("form", { class: "chat-form", "data-part": "chat-form", onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      if (await this.ctrl.say(input.value)) input.value = "";
    } }, input, h("button", { type: "submit", "data-act": "chat-send" }, t("match.send")));
    return h("section", { class: "card", "data-part": "chat", "aria-labelledby": "t-chat", hidden: true },
      h("h2", { id: "t-chat" }, t("match.chat")), this.chatLines, this.chatEmpty, this.chatForm);
  }

  /** The lines new since the last read appended (as text); the form for the players only. */
  drawChat() {
    const c = this.ctrl;
    this.chatEl.hidden = !c.tournament;
    const lines = c.chat;
    const { reset, added, keys } = chatAdded(this.chatKeys, lines);
    if (reset) this.chatLines.replaceChildren();
    this.chatLines.append(...added.map((l) => h("li", {}, h("strong", {}, `${l.from}: `), l.text)));
    while (this.chatLines.children.length > lines.length) this.chatLines.firstElementChild?.remove();
    if (added.length) this.chatLines.scrollTop = this.chatLines.scrollHeight;
    this.chatKeys = keys;
    this.chatEmpty.hidden = lines.length > 0;
    this.chatForm.hidden = !c.mayChat;
  }

  /** The state, the settings, the player's buttons, the invite link and the CSV. */
  summary() {
    const c = this.ctrl;
    const tm = /** @type {import("../wire.js").TournamentView} */ (c.tournament);
    const when = tm.state === "registering"
      ? (tm.starts_at ? t("tournament.starts_at", { time: fmtDate(tm.starts_at) }) : t("tournament.starts_by_hand"))
      : tm.state === "running" ? [tm.ends_at ? t("tournament.ends_at", { time: fmtDate(tm.ends_at) }) : null,
        tm.format !== "arena" ? t("tournament.round_n", { round: tm.round }) : null].filter(Boolean).join(" · ")
        : tm.finished_at ? t("tournament.finished_at", { time: fmtDate(tm.finished_at) }) : "";
    const invite = c.detail?.invite ? location.origin + c.detail.invite : "";
    const bots = /** @type {HTMLSelectElement} */ (select("bot", [1, 2, 3, 4, 5].map((n) => [n, t(`lobby.bot_${n}`)]), 3));
    bots.setAttribute("aria-label", t("lobby.bot_level"));
    return h("section", { class: "card stack", "data-part": "summary", "aria-labelledby": "t-summary" },
      h("h2", { id: "t-summary" }, t("tournament.about")),
      h("p", { "data-state": tm.state },
        h("strong", {}, stateText(tm)), when ? ` · ${when}` : "",
        " · ", t("tournament.players_of", { count: tm.players, max: tm.max_players })),
      h("p", { class: "muted" }, settingsText(tm), tm.private ? ` · ${t("tournament.private_mark")}` : "",
        " · ", t("tournament.by", { name: tm.organiser })),
      c.champion ? h("p", { class: "champion", "data-part": "champion" }, t("tournament.champion", { name: c.champion })) : null,
      c.entered ? h("p", { "data-part": "entered" }, t("tournament.you_are_in")) : null,
      c.myMatch ? h("p", {}, h("a", { class: "button primary", href: `#/match/${c.myMatch}`, "data-act": "my-match" }, t("tournament.your_match"))) : null,
      c.mayRegister || c.mayWithdraw || c.mayStart ? h("div", { class: "row" },
        c.mayRegister ? h("button", { type: "button", class: "primary", "data-act": "register", disabled: c.busy, onclick: () => this.ctrl.register() }, t("tournament.register")) : null,
        c.mayWithdraw ? h("button", { type: "button", class: "danger", "data-act": "withdraw", disabled: c.busy, onclick: () => this.withdraw() }, t("tournament.withdraw")) : null,
        c.mayStart ? h("button", { type: "button", class: "primary", "data-act": "start", disabled: c.busy || tm.players < 2, onclick: () => this.ctrl.start() }, t("tournament.start")) : null) : null,
      c.mayStart ? h("div", { class: "row", "data-part": "bots" }, bots,
        h("button", { type: "button", "data-act": "add-bot", disabled: c.busy, onclick: () => this.ctrl.addBot(Number(bots.value)) }, t("tournament.add_bot"))) : null,
      c.mayStart && tm.players < 2 ? h("p", { class: "muted small" }, t("tournament.start_needs_two")) : null,
      invite ? h("div", { class: "stack", "data-part": "invite" },
        h("label", { class: "field" }, h("span", {}, t("tournament.invite")),
          h("input", { type: "text", readonly: true, value: invite, onfocus: (/** @type {any} */ e) => e.target.select() }))) : null,
      tm.state !== "registering" ? h("p", {}, downloadLink(c.csvHref, `tournament-${tm.id}.csv`, t("tournament.results_csv"))) : null,
      h("p", {}, h("a", { href: "#/tournaments" }, t("tournament.all"))));
  }

  async withdraw() {
    const running = this.ctrl.tournament?.state === "running";
    if (running) {
      const sure = await ask({ title: t("tournament.withdraw"), body: h("p", {}, t("tournament.withdraw_confirm")),
        buttons: [{ value: "cancel", label: t("common.cancel") }, { value: "withdraw", label: t("tournament.withdraw"), class: "danger" }] });
      if (sure !== "withdraw") return;
    }
    this.ctrl.withdraw();
  }

  /** The rules of its format, as the server applies them. */
  rules() {
    const tm = /** @type {import("../wire.js").TournamentView} */ (this.ctrl.tournament);
    const rule = tm.format === "swiss" ? t("tournament.rules_swiss", { count: tm.rounds ?? 0 })
      : tm.format === "arena" ? t("tournament.rules_arena", { count: Math.round((tm.duration ?? 0) / 60) })
        : t("tournament.rules_knockout");
    return h("section", { class: "card stack", "data-part": "rules", "aria-labelledby": "t-rules" },
      h("h2", { id: "t-rules" }, t("tournament.rules")),
      h("p", {}, rule),
      h("p", { class: "muted small" }, t("tournament.rules_matches")),
      h("p", { class: "muted small" }, t("tournament.rules_no_show", { count: Math.round(tm.no_show) })),
      h("p", { class: "muted small" }, t("tournament.rules_stall", { count: Math.round(tm.stall / 60) })));
  }

  /** A pairing's players, the winner marked. @param {Slot} s */
  players(s) {
    /** @param {import("./tournaments/ctrl.js").Side} side @param {0 | 1} n */
    const one = (side, n) => h("span", { class: `bracket-player${s.winner === n ? " winner" : ""}`, "data-winner": s.winner === n ? "true" : null },
      side ? side.name : s.reason === "bye" ? t("tournament.bye") : "—",
      s.winner === n ? h("span", { class: "sr-only" }, ` (${t("tournament.winner")})`) : null);
    return [one(s.first, 0), one(s.second, 1)];
  }

  /** A link to watch or review a pairing's match. @param {Slot} s */
  matchLink(s) {
    if (!s.match) return s.reason && s.reason !== "bye" ? h("span", { class: "muted small" }, t(`tournament.reason_${s.reason}`)) : null;
    const label = s.pending ? (this.ctrl.mine(s) ? t("tournament.play") : t("tournament.watch")) : t("tournament.review");
    return h("a", { href: `#/match/${s.match}`, "data-match": s.match }, label);
  }

  /** A knockout's bracket: a column a round. */
  bracket() {
    const columns = this.ctrl.bracket();
    const total = columns.length;
    /** @param {number} round */
    const title = (round) => (round === total ? t("tournament.final") : round === total - 1 ? t("tournament.semi_final") : t("tournament.round_n", { round }));
    return h("section", { class: "card", "data-part": "bracket", "aria-labelledby": "t-bracket" },
      h("h2", { id: "t-bracket" }, t("tournament.bracket")),
      columns.length ? h("div", { class: "bracket", role: "list" }, columns.map((col) => h("section", { class: "bracket-round", role: "listitem", "data-round": col.round, "aria-label": title(col.round) },
        h("h3", {}, title(col.round)),
        h("ol", { class: "bracket-slots" }, col.slots.map((s) => h("li", { class: "bracket-slot", "data-pending": String(s.pending) },
          this.players(s), h("div", { class: "small" }, this.matchLink(s))))))))
        : h("p", { class: "empty" }, t("tournament.not_started")));
  }

  /** The standings (the final results once finished). */
  standings() {
    const c = this.ctrl;
    const tm = /** @type {import("../wire.js").TournamentView} */ (c.tournament);
    const rows = c.detail?.standings ?? [];
    const streaks = tm.format === "arena" ? c.streaks() : null;
    const me = this.app.me?.id;
    const th = (/** @type {string} */ text, num = true) => h("th", { scope: "col", class: num ? "num" : null }, text);
    return h("section", { class: "card", "data-part": "standings", "aria-labelledby": "t-standings" },
      h("h2", { id: "t-standings" }, tm.state === "finished" ? t("tournament.final_results") : t("tournament.standings")),
      rows.length && tm.state !== "registering" ? h("div", { class: "table-scroll" }, h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, th(t("tournament.place")), th(t("lobby.player"), false), th(t("tournament.points")),
          tm.format === "swiss" ? [th(t("tournament.buchholz")), th(t("tournament.sonneborn_berger"))] : null,
          streaks ? th(t("tournament.streak")) : null,
          th(t("profile.played")), th(t("profile.won")))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.id === me ? "me" : null, "data-player": r.name },
          h("td", { class: "num" }, String(r.place)),
          h("th", { scope: "row" }, r.name, r.withdrawn ? h("span", { class: "muted small" }, ` (${t("tournament.withdrawn")})`) : null),
          h("td", { class: "num", "data-col": "points" }, String(r.points)),
          tm.format === "swiss" ? [h("td", { class: "num" }, String(r.buchholz ?? "")), h("td", { class: "num" }, String(r.sonneborn_berger ?? ""))] : null,
          streaks ? h("td", { class: "num", "data-col": "streak" }, this.streak(streaks.get(r.id) ?? 0)) : null,
          h("td", { class: "num" }, String(r.played)), h("td", { class: "num" }, String(r.won)))))))
        : h("p", { class: "empty" }, t("tournament.not_started")));
  }

  /** An arena streak: the wins in a row, "on fire" from two (the next win is 4). @param {number} n */
  streak(n) {
    return n >= 2 ? h("span", { class: "on-fire", title: t("tournament.on_fire") }, `${n} `, h("span", { "aria-hidden": "true" }, "🔥"),
      h("span", { class: "sr-only" }, t("tournament.on_fire"))) : String(n);
  }

  /** The matches in play, each linked (the player's own first). */
  playing() {
    const slots = this.ctrl.inPlay();
    if (this.ctrl.tournament?.state !== "running") return null;
    return h("section", { class: "card", "data-part": "playing", "aria-labelledby": "t-playing" },
      h("h2", { id: "t-playing" }, t("tournament.in_play")),
      slots.length ? h("ul", { class: "tournament-list" }, slots.map((s) => h("li", { "data-match": s.match },
        h("span", {}, s.first?.name ?? "?", " – ", s.second?.name ?? "?"), " ", this.matchLink(s))))
        : h("p", { class: "empty" }, t("tournament.none_in_play")));
  }

  /** A Swiss's rounds, each a list of its pairings (the current one open). */
  swissRounds() {
    const rounds = this.ctrl.detail?.rounds ?? [];
    if (!rounds.length) return null;
    return h("section", { class: "card", "data-part": "rounds", "aria-labelledby": "t-rounds" },
      h("h2", { id: "t-rounds" }, t("tournament.pairings")),
      [...rounds].reverse().map((r, n) => h("details", { open: n === 0, "data-round": r.round },
        h("summary", {}, t("tournament.round_n", { round: r.round })),
        h("ul", { class: "tournament-list" }, r.pairings.map((p) => {
          const s = this.ctrl.slot(p);
          return h("li", {}, this.players(s), " ", this.matchLink(s));
        })))));
  }

  /** Who entered (before the start, the list that matters). */
  entries() {
    const entries = this.ctrl.detail?.entries ?? [];
    return h("section", { class: "card", "data-part": "entries", "aria-labelledby": "t-entries" },
      h("h2", { id: "t-entries" }, t("tournament.entries", { count: entries.filter((e) => !e.withdrawn).length })),
      entries.length ? h("ul", { class: "entries" }, entries.map((e) => h("li", { "data-entry": e.name },
        h("a", { href: `#/profile/${encodeURIComponent(e.name)}` }, e.name), " ",
        h("span", { class: "muted small" }, String(Math.round(e.rating))),
        e.withdrawn ? h("span", { class: "muted small" }, ` (${t("tournament.withdrawn")})`) : null)))
        : h("p", { class: "empty" }, t("tournament.no_entries")));
  }
}
