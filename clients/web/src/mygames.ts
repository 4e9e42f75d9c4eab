// "My games" (#/me): sign in as a guest, then the player's games from ListMyGames (the server puts those
// awaiting the player's decision first, then the most recently active), 20 a page with "More", each with a
// your-turn, invited or result badge and a link into the game; and the unread notifications. WatchPlayer
// (followPlayer: resumed across reconnects) keeps it live: each notification (my turn started, a deadline
// near, invited, a game finished, a rematch asked) re-reads the list. The server tells a player nothing
// when the turn leaves them (they made the move), so the list is also re-read when the tab becomes visible
// again and every REREAD_MS while it is.

import { followPlayer, GameStatus, NotificationKind } from "@tabletop/client/browser";
import type { PlayerGame, PlayerNotification, Ruleset, TabletopClient } from "@tabletop/client/browser";
import { anonymous, refusal } from "./api.js";
import { h } from "./dom.js";
import type { Page } from "./game.js";
import { t } from "./i18n/index.js";
import type { Key } from "./i18n/index.js";
import { gameId, statusName } from "./lobby.js";
import { seatNames } from "./names.js";
import { playerClient, rememberSeat, signedIn, signInAsGuest, signOut } from "./players.js";

/** Draw My games (or the sign-in form) into `root`; the router stops it when another page opens. */
export function showMyGames(root: HTMLElement): Page {
  const page = new MyGames(root);
  void page.start();
  return page;
}

/** How often the list is re-read while the tab is visible, besides every notification. */
const REREAD_MS = 15_000;
const PAGE_SIZE = 20;

class MyGames implements Page {
  private readonly stopped = new AbortController();
  private readonly games = h("section", { class: "my-games", "data-testid": "my-games" });
  private readonly inbox = h("section", { class: "inbox", "data-testid": "inbox" });
  private rulesets = new Map<string, string>();
  private pages = 1;
  private reads = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly onVisible = (): void => {
    if (document.visibilityState === "visible") {
      void this.reread();
    }
  };

  constructor(private readonly root: HTMLElement) {}

  async start(): Promise<void> {
    const client = playerClient();
    const who = signedIn();
    if (client === undefined || who === undefined) {
      this.root.replaceChildren(signInForm());
      return;
    }
    this.root.replaceChildren(
      h("header", { class: "game-header" }, h("h1", {}, t("players.title")),
        h("span", {}, `${t("players.signedInAs")} `, h("b", { "data-testid": "player-name" }, who.displayName)),
        h("label", {}, `${t("players.playerId")} `,
          h("input", { readonly: true, value: who.playerId, "data-testid": "player-id", size: 28 })),
        h("button", { type: "button", "data-testid": "sign-out", onclick: () => { signOut(); location.hash = "#/"; } },
          t("players.signOut"))),
      this.inbox, this.games);
    try {
      const { rulesets } = await anonymous.listRulesets({});
      this.rulesets = new Map(rulesets.map((r: Ruleset) => [r.id, r.displayName]));
    } catch {
      // The ids stand in for the names.
    }
    await this.reread();
    document.addEventListener("visibilitychange", this.onVisible);
    this.timer = setInterval(() => { if (document.visibilityState === "visible") void this.reread(); }, REREAD_MS);
    void this.follow(client);
  }

  stop(): void {
    this.stopped.abort();
    document.removeEventListener("visibilitychange", this.onVisible);
    clearInterval(this.timer);
  }

  /** WatchPlayer from now on until the page is left: every notification re-reads the list and the inbox. */
  private async follow(client: TabletopClient): Promise<void> {
    const signal = this.stopped.signal;
    while (!signal.aborted) {
      try {
        for await (const note of followPlayer(client, "", { signal, timeoutMs: 0 })) {
          // The count of notifications this page was told (the browser test reads it: live, not re-read).
          this.root.dataset["notifications"] = String(Number(this.root.dataset["notifications"] ?? 0) + 1);
          this.root.dataset["lastNotification"] = NotificationKind[note.kind] ?? "";
          await this.reread();
        }
      } catch {
        // Not UNAVAILABLE (followPlayer retries those): a refused token, the page left. Try again later.
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }

  /** ListMyGames (as many pages as are shown) and the unread notifications; an overtaken read is dropped. */
  private async reread(): Promise<void> {
    const client = playerClient();
    if (client === undefined) {
      return;
    }
    const ticket = ++this.reads;
    try {
      const games: PlayerGame[] = [];
      let token = "";
      let more = false;
      for (let i = 0; i < this.pages; i++) {
        const reply = await client.listMyGames({ pageSize: PAGE_SIZE, pageToken: token });
        games.push(...reply.games);
        token = reply.nextPageToken;
        more = token !== "";
        if (!more) {
          break;
        }
      }
      const notes = await client.listNotifications({ pageSize: 10, filter: "read = false" });
      if (ticket !== this.reads) {
        return;
      }
      this.drawGames(games, more);
      this.drawInbox(notes.notifications, notes.unreadCount, client);
    } catch (err) {
      if (ticket === this.reads) {
        this.games.replaceChildren(refusal(err, "my-games-error"));
      }
    }
  }

  private drawGames(games: PlayerGame[], more: boolean): void {
    for (const entry of games) {
      if (!entry.invited && entry.game !== undefined) {
        rememberSeat(entry.game.name, entry.seat);
      }
    }
    const rows = games.map((entry) => this.row(entry));
    this.games.replaceChildren(h("h2", {}, t("players.yourGames")),
      rows.length === 0 ? h("p", {}, t("players.none"))
        : h("table", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("lobby.game")), h("th", {}, t("lobby.players")),
          h("th", {}, t("lobby.status")), h("th", {}, t("players.lastMove")), h("th", {})), ...rows),
      ...(more ? [h("button", { type: "button", "data-testid": "more",
        onclick: () => { this.pages++; void this.reread(); } }, t("players.more"))] : []));
    this.root.dataset["myTurn"] = String(games.filter((g) => g.decisionPending).length);
  }

  private row(entry: PlayerGame): HTMLElement {
    const game = entry.game;
    const names = seatNames(game?.seats ?? []);
    const status = game?.status ?? GameStatus.UNSPECIFIED;
    let badge: HTMLElement | string = "";
    if (entry.invited) {
      badge = h("span", { class: "badge invited", "data-testid": "invited" }, t("players.invited"));
    } else if (entry.decisionPending) {
      badge = h("span", { class: "badge turn", "data-testid": "your-turn" }, t("players.yourTurn"));
    } else if (status === GameStatus.FINISHED) {
      badge = h("span", { class: "badge" }, entry.won ? t("players.won") : t("players.over"));
    }
    const waitingOn = entry.turnSeats.map((s) => names[s] ?? `seat ${s}`).join(", ");
    const last = entry.lastActivityTime === undefined ? ""
      : new Date(Number(entry.lastActivityTime.seconds) * 1000).toLocaleString();
    const id = gameId(game?.name ?? "");
    return h("tr", { "data-game": game?.name ?? "", class: entry.decisionPending ? "turn" : "" },
      h("td", {}, badge),
      h("td", {}, this.rulesets.get(game?.ruleset ?? "") ?? game?.ruleset ?? ""),
      h("td", {}, names.map((n, i) => (i === entry.seat && !entry.invited ? t("players.you", { name: n }) : n)).join(", ")),
      h("td", {}, statusName(status),
        waitingOn !== "" && status === GameStatus.ACTIVE ? ` · ${t("players.waitingFor", { names: waitingOn })}` : ""),
      h("td", {}, last),
      h("td", {}, h("a", { href: `#/games/${id}`, "data-testid": "open-game" },
        entry.invited ? t("players.take") : t("players.open"))));
  }

  private drawInbox(notes: PlayerNotification[], unread: number, client: TabletopClient): void {
    if (notes.length === 0) {
      this.inbox.replaceChildren();
      return;
    }
    const markAll = async (): Promise<void> => {
      await client.markNotificationsRead({ all: true }).catch(() => undefined);
      await this.reread();
    };
    this.inbox.replaceChildren(h("h2", {}, t("players.notifications", { n: unread })),
      h("ul", {}, ...notes.map((n) => h("li", { "data-testid": "notification", "data-kind": NotificationKind[n.kind] },
        h("a", { href: `#/games/${gameId(n.game)}` }, noteText(n, this.rulesets))))),
      h("button", { type: "button", "data-testid": "mark-read", onclick: () => void markAll() }, t("players.markRead")));
  }
}

export function signInForm(): HTMLElement {
  const name = h("input", { "data-testid": "guest-name", placeholder: t("lobby.namePlaceholder"), required: true,
    maxlength: 64, autocomplete: "nickname" });
  const message = h("div", { "data-testid": "sign-in-error" });
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    message.replaceChildren();
    try {
      await signInAsGuest(name.value.trim());
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    } catch (err) {
      message.replaceChildren(refusal(err, "sign-in-refusal"));
    }
  };
  return h("form", { class: "create", "data-testid": "sign-in", onsubmit: (e) => void submit(e) },
    h("h1", {}, t("players.signIn")), h("p", {}, t("players.signInText")),
    h("label", {}, `${t("lobby.yourName")} `, name),
    h("button", { type: "submit", "data-testid": "guest-sign-in" }, t("players.guestSignIn")), message,
    h("a", { href: "#/" }, t("players.backToLobby")));
}

function noteText(note: PlayerNotification, rulesets: Map<string, string>): string {
  const game = note.playerGame?.game;
  const what = rulesets.get(game?.ruleset ?? "") ?? game?.ruleset ?? note.game;
  const keys: Record<number, Key> = {
    [NotificationKind.TURN_STARTED]: "players.note.turn", [NotificationKind.DEADLINE_NEAR]: "players.note.deadline",
    [NotificationKind.INVITED]: "players.note.invited", [NotificationKind.GAME_FINISHED]: "players.note.finished",
    [NotificationKind.REMATCH_ASKED]: "players.note.rematch",
  };
  return t(keys[note.kind] ?? "players.note.news", { game: what });
}
