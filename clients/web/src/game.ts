// The game page: one game, seen as this tab's seat (or as a spectator). It loads the view and the seat's
// legal actions, keeps a WatchGame stream open and reloads both at every version it announces, so every
// tab follows the game live. The board is the ruleset's renderer (ttr/, bang/); the actions are exactly
// what ListLegalActions offers, sent back unchanged with the version they were listed at.

import type { Action, Event as GameEvent, GetGameResponse, GetRulesetResponse, TabletopClient } from "@tabletop/client/browser";
import { GameStatus } from "@tabletop/client/browser";
import { actionPanel, choicePanel } from "./actions.js";
import type { Context } from "./actions.js";
import { anonymous, catalog, refusal, unreachable, loadCredential, saveCredential, seatClient } from "./api.js";
import type { Credential } from "./api.js";
import { drawBang } from "./bang/table.js";
import { Connection } from "./connection.js";
import { h } from "./dom.js";
import { FEED_LENGTH, feedLines } from "./events.js";
import { dealMark, verifyDeal } from "./fairplay.js";
import { t } from "./i18n/index.js";
import { statusName } from "./lobby.js";
import { seatNames } from "./names.js";
import { replayHref } from "./replay.js";
import { credentialFrom, playerClient, playerCredential, signedIn } from "./players.js";
import { drawTtr } from "./ttr/panel.js";

/** A page that can be left: the router stops it before drawing another. */
export interface Page {
  stop(): void;
}

/** Open game `name` (games/<id>) in `root`. */
export function openGame(root: HTMLElement, name: string): Page {
  const page = new GamePage(root, name);
  void page.start();
  return page;
}

/** How many times a load asks again when its view and its actions are of two versions (a move between them),
 * or its actions could not be had. */
const MAX_LOAD_ATTEMPTS = 5;
/** How often the page checks that its watch stream is not behind the game. */
const STALE_CHECK_MS = 5000;

class GamePage implements Page {
  private credential: Credential | undefined;
  private client: TabletopClient = anonymous;
  private reply: GetGameResponse | undefined;
  private actions: Action[] = [];
  private listedAt = 0n;
  private catalog: GetRulesetResponse | undefined;
  private watch = new AbortController();
  private feed: string[] = [];
  private events: GameEvent[] = [];
  private message: unknown = undefined;
  private choice: { title: string; actions: Action[] } | undefined;
  private readonly connection = new Connection();
  private readonly staleCheck: number;
  private behindAt: bigint | undefined;
  private stopped = false;
  private busy = false;
  // The name typed into the join form: the page is redrawn at every version (another seat joining), and a
  // redraw must not empty the field under the player's fingers.
  private joinName: string | undefined;
  private joining: { displayName: string; requestId: string } | undefined;  // the last JoinGame sent (its request id)
  // The signed-in player's own rating in this game's ruleset (issue 28), asked once when the page opens as the
  // player's seat; other seats' ratings are not shown: a seat never says which player holds it.
  private rating: string | undefined;
  private ratingAsked = false;
  private loads = 0;

  constructor(private readonly root: HTMLElement, private readonly name: string) {
    // A watch stream can stay open yet deliver nothing (a proxy holding it, a stuck replica): every few
    // seconds the page asks for the game's version, and when the game is ahead of the page it says so and
    // reopens the stream.
    this.staleCheck = window.setInterval(() => void this.checkStale(), STALE_CHECK_MS);
  }

  async start(): Promise<void> {
    this.useCredential(loadCredential(this.name) ?? playerCredential(this.name));
    try {
      await this.load();
      this.connection.online();
    } catch (err) {
      if (!unreachable(err)) {
        this.root.replaceChildren(refusal(err));
        return;
      }
      this.connection.failed();
      this.root.replaceChildren(this.connection.element);
    }
    void this.follow();
  }

  stop(): void {
    this.stopped = true;
    this.watch.abort();
    window.clearInterval(this.staleCheck);
    this.connection.stop();
  }

  // Loading and watching

  private useCredential(credential: Credential | undefined): void {
    this.credential = credential;
    this.client = credential === undefined ? anonymous
      : credential.player === true ? playerClient() ?? anonymous : seatClient(credential.token);
  }

  /** GetGame and ListLegalActions; a load overtaken by a later one is dropped. The two calls go out together,
   * so a move can land between their answers: then the view and the actions are of two versions (the page
   * would show the new version with the old actions, and no later message would mend it), so it asks again. */
  private async load(attempt = 0): Promise<void> {
    const ticket = ++this.loads;
    const client = this.client;
    const [reply, legal] = await Promise.all([
      client.getGame({ name: this.name }),
      this.credential === undefined ? undefined : client.listLegalActions({ name: this.name }).catch(() => null),
    ]);
    if (ticket !== this.loads) {
      return;
    }
    // A failed ListLegalActions (a deadline on a busy server) must not show "no moves" until the next version,
    // which may be the seat's own to make: ask again after a moment.
    const failed = legal === null;
    if ((failed || (legal !== undefined && legal.version !== reply.game?.version)) && attempt < MAX_LOAD_ATTEMPTS) {
      if (failed) {
        await new Promise((resolve) => window.setTimeout(resolve, 250 * (attempt + 1)));
      }
      await this.load(attempt + 1);
      return;
    }
    this.catalog ??= await catalog(reply.game?.ruleset ?? "");
    if (reply.game?.version !== this.reply?.game?.version) {
      this.choice = undefined;  // asked at an older version: its actions may no longer be legal
    }
    this.reply = reply;
    if (this.credential?.player === true && !this.ratingAsked && reply.game !== undefined) {
      this.ratingAsked = true;
      void this.loadRating(reply.game.ruleset);
    }
    this.actions = legal?.actions ?? [];
    this.listedAt = legal?.version ?? reply.game?.version ?? 0n;
    this.render();
  }

  /** WatchGame until the page is left: every message is a new version. Each (re)connection first reloads
   * the game, which is what tells the page the server answers again; a failure waits with a growing delay
   * (1, 2, 4, 8 s) shown as a countdown, and a retry that gets through clears the error it had caused. */
  private async follow(): Promise<void> {
    const signal = this.watch.signal;
    while (!signal.aborted && this.reply?.game?.status !== GameStatus.FINISHED) {
      try {
        if (!this.connection.isOnline()) {
          await this.load();
          this.reconnected();
        }
        // The first time, from a few versions back: the stream replays them (projected for this viewer), so
        // a late spectator's feed starts with the recent moves instead of empty.
        const shown = this.reply?.game?.version ?? 0n;
        const from = this.events.length === 0 && this.feed.length === 0 && shown > BigInt(FEED_LENGTH)
          ? shown - BigInt(FEED_LENGTH) : this.events.length === 0 && this.feed.length === 0 ? 0n : shown;
        for await (const message of this.client.watchGame({ name: this.name, fromVersion: from },
          { signal, timeoutMs: 0 })) {
          this.reconnected();
          this.note(message.events);
          if (message.version > (this.reply?.game?.version ?? 0n)) {
            await this.load();
          } else {
            this.render();  // a replayed version: only the feed is new
          }
        }
        await this.connection.wait(signal, false);
      } catch (err) {
        // The stream or the reload failed. Not reaching the server (stopped, network) is a connection
        // failure: count it and wait, growing. An answer from the server (a refusal) is not: wait a moment.
        if (!signal.aborted) {
          const away = unreachable(err);
          if (away) {
            this.connection.failed();
          }
          await this.connection.wait(signal, away);
        }
      }
    }
  }

  private reconnected(): void {
    const wasOnline = this.connection.isOnline();
    this.connection.online();
    if (!wasOnline && this.message !== undefined && unreachable(this.message)) {
      this.message = undefined;
      this.render();
    }
  }

  /** Whether the game is ahead of what the page shows: then the stream is behind (stale), so reopen it. */
  private async checkStale(): Promise<void> {
    if (!this.connection.isOnline() || this.reply?.game === undefined) {
      return;
    }
    try {
      const shown = this.reply.game.version;
      const latest = await anonymous.getGame({ name: this.name });
      const behind = (latest.game?.version ?? 0n) > shown && this.reply.game?.version === shown;
      // Behind at two checks in a row at the same version: not a message still on its way.
      if (behind && this.behindAt !== shown) {
        this.behindAt = shown;
      } else if (behind) {
        this.connection.stale(true);
        this.watch.abort();
        this.watch = new AbortController();
        await this.load();
        void this.follow();
      } else {
        this.behindAt = undefined;
        this.connection.stale(false);
      }
    } catch {
      // The stream's own retries report the connection.
    }
  }

  private note(events: GameEvent[]): void {
    this.events.push(...events);
    this.events.splice(0, Math.max(this.events.length - FEED_LENGTH, 0));
    this.feed = this.describeFeed();
  }

  /** The feed's lines, newest first, worded now (so switching the language rewords them). */
  private describeFeed(): string[] {
    const ctx = this.context();
    return ctx === undefined ? [] : feedLines(this.events, ctx);
  }

  // Acting

  private async act(action: Action): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    this.message = undefined;
    this.choice = undefined;
    this.render();
    try {
      await this.client.submitAction({ name: this.name, action, expectedVersion: this.listedAt,
        requestId: crypto.randomUUID() });
    } catch (err) {
      this.message = err;
      if (unreachable(err)) {
        this.connection.failed();
      }
    }
    this.busy = false;
    try {
      await this.load();
    } catch {
      this.render();
    }
  }

  private async loadRating(ruleset: string): Promise<void> {
    const client = playerClient();
    if (client === undefined) {
      return;
    }
    try {
      const { profile } = await client.getPlayerProfile({ name: "players/me", historySize: 1 });
      const mine = profile?.ratings.find((r) => r.ruleset === ruleset);
      this.rating = mine === undefined ? t("play.unrated")
        : t("play.yourRating", { rating: mine.rating.toFixed(1), played: String(mine.gamesPlayed) });
    } catch {
      return;  // the rating is an extra: the table plays without it
    }
    this.render();
  }

  private async join(displayName: string): Promise<void> {
    try {
      if (this.joining?.displayName !== displayName) {  // sent again as it was: the same request, the same seat
        this.joining = { displayName, requestId: crypto.randomUUID() };
      }
      const joined = await (playerClient() ?? anonymous).joinGame({ name: this.name, displayName,
        requestId: this.joining.requestId });
      const own = joined.credential;
      if (own !== undefined) {
        const credential = credentialFrom(this.name, own);
        saveCredential(this.name, credential);
        this.useCredential(credential);
        this.watch.abort();
        this.watch = new AbortController();
        void this.follow();
      }
      this.message = undefined;
    } catch (err) {
      this.message = err;
    }
    await this.load();
  }

  // Drawing

  private context(): Context | undefined {
    const game = this.reply?.game;
    if (game === undefined || this.catalog === undefined) {
      return undefined;
    }
    const names = seatNames(game.seats);
    return { catalog: this.catalog, view: this.reply?.view, names, seat: this.credential?.seat,
      actions: this.actions, offer: this.credential === undefined ? undefined : (title, actions) => this.offer(title, actions) };
  }

  /** The board's click: one action is sent, several are asked about (payment, target). */
  private offer(title: string, actions: Action[]): void {
    if (actions.length === 1 && actions[0] !== undefined) {
      void this.act(actions[0]);
      return;
    }
    this.choice = { title, actions };
    this.render();
    this.root.querySelector<HTMLElement>("[data-testid=choice-option]")?.focus();
  }

  private render(): void {
    if (this.stopped) {
      return;  // the player went to another page: a load still on its way must not draw over it
    }
    const game = this.reply?.game;
    const ctx = this.context();
    if (game === undefined || ctx === undefined) {
      return;
    }
    const board = ctx.catalog.catalog.case === "ttrEurope" ? drawTtr(ctx) : drawBang(ctx);
    if (this.feed.length === 0 && this.events.length > 0) {
      this.feed = this.describeFeed();
    }
    const focused = focusKey(document.activeElement);
    this.root.replaceChildren(
      this.header(),
      h("div", { class: "message", "data-testid": "message", role: "status" },
        this.message === undefined ? null : refusal(this.message, "refusal")),
      h("div", { class: "play" }, board,
        h("aside", {}, this.choice === undefined ? null : choicePanel(this.choice.title, this.choice.actions, ctx, this.busy,
          (action) => void this.act(action), () => { this.choice = undefined; this.render(); }),
        actionPanel(this.actions, ctx, this.busy, (action) => void this.act(action)),
          h("section", { class: "feed", "data-testid": "feed", "aria-live": "polite" }, h("h3", {}, t("game.live")),
            h("ul", {}, ...this.feed.map((line) => h("li", {}, line)))))));
    if (focused !== null) {
      // The page is redrawn at every version: keep the keyboard where it was (the same route, card, button).
      this.root.querySelector<HTMLElement>(focused)?.focus();
    }
    this.root.dataset["version"] = String(game.version);
    this.root.dataset["status"] = GameStatus[game.status];
  }

  private header(): HTMLElement {
    const game = this.reply?.game;
    const link = `${location.origin}/#/games/${this.name.replace(/^games\//, "")}`;
    const seat = this.credential?.seat;
    const names = seatNames(game?.seats ?? []);
    const open = game?.status === GameStatus.WAITING && game.seats.some((s) => !s.occupied);
    let who: HTMLElement;
    if (seat !== undefined) {
      who = h("span", { "data-testid": "seat", "data-seat": seat }, t("game.you", { name: names[seat] ?? "", seat }));
    } else if (open) {
      const input = h("input", { "data-testid": "join-name", placeholder: t("game.joinPlaceholder"), maxlength: 64,
        "aria-label": t("game.joinPlaceholder"), value: this.joinName ?? signedIn()?.displayName ?? "",
        oninput: (e) => { this.joinName = (e.target as HTMLInputElement).value; } });
      who = h("form", { class: "join", onsubmit: (e) => { e.preventDefault(); void this.join(input.value.trim()); } },
        input, h("button", { type: "submit", "data-testid": "join" }, t("game.join")), ` ${t("game.orWatch")}`);
    } else {
      who = h("span", { "data-testid": "spectator" }, t("game.spectating"));
    }
    return h("header", { class: "game-header" },
      h("h1", {}, this.catalog?.ruleset?.displayName ?? game?.ruleset ?? ""),
      h("span", { class: "status" }, t("game.version", { status: statusName(game?.status ?? GameStatus.UNSPECIFIED), version: String(game?.version ?? 0) })),
      this.connection.element,
      ...(game ? [...dealMark(game), ...verifyDeal(game)] : []),
      // A replay of what a spectator saw: offered to spectators and, once it is over, to everyone.
      game !== undefined && (seat === undefined || game.status === GameStatus.FINISHED)
        ? h("a", { href: replayHref(this.name, game.version), "data-testid": "replay-link" }, t("replay.link", { version: String(game.version) }))
        : null,
      h("label", {}, `${t("game.link")} `, h("input", { readonly: true, value: link, "data-testid": "share-link", size: 40 })),
      this.rating === undefined ? null : h("span", { class: "rating", "data-testid": "table-rating" }, this.rating),
      h("span", { class: "seats" }, ...(game?.seats ?? []).map((s) =>
        h("span", { class: `seat-chip p${s.index}`, "data-testid": "seat-chip" },
          s.occupied ? names[s.index] ?? "" : t("seat.open", { n: s.index })))),
      who);
  }
}

/** A selector for the focused element that finds its counterpart after a redraw, or null. */
function focusKey(element: Element | null): string | null {
  if (element === null || element === document.body) {
    return null;
  }
  for (const name of ["data-city", "data-seat"]) {
    // A city or a seat is kept only as a button (a seat's number also marks the header and the players' rows).
    const value = element.getAttribute(name);
    if (value !== null && element.classList.contains("actionable")) {
      return `[${name}="${CSS.escape(value)}"].actionable`;
    }
  }
  for (const name of ["data-route", "data-card", "data-slot", "data-ticket"]) {
    const value = element.getAttribute(name);
    if (value !== null) {
      return `${element.tagName === "INPUT" ? "input" : ""}[${name}="${CSS.escape(value)}"]`;
    }
  }
  const testid = element.getAttribute("data-testid");
  const index = element.getAttribute("data-index");
  return testid === null ? null : `[data-testid="${CSS.escape(testid)}"]${index === null ? "" : `[data-index="${CSS.escape(index)}"]`}`;
}
