// "Play now" (#/play) and the leaderboards (#/leaderboard/<ruleset>), issue 28. Play now: per ruleset a
// seat range and a wait before bots, then FindGame; while the ticket waits, a counter and Cancel; GetTicket
// is polled every POLL_MS (WatchPlayer also tells TICKET_SEATED; polling needs no stream) and once seated the
// game opens, as the player's seat. A leaderboard lists the ruleset's best players (ListLeaderboard), and
// the signed-in player's rating and the page around them.

import { TicketState } from "@tabletop/client/browser";
import type { LeaderboardEntry, Ruleset } from "@tabletop/client/browser";
import { anonymous, refusal } from "./api.js";
import { h } from "./dom.js";
import type { Page } from "./game.js";
import { t } from "./i18n/index.js";
import { signInForm } from "./mygames.js";
import { playerClient, rememberSeat, signedIn } from "./players.js";

const POLL_MS = 1000;

/** Draw Play now (or the sign-in form) into `root`. */
export function showPlayNow(root: HTMLElement): Page {
  const stopped = new AbortController();
  void drawPlayNow(root, stopped.signal).catch((err: unknown) => root.replaceChildren(refusal(err)));
  return { stop: () => stopped.abort() };
}

/** Draw the ruleset's leaderboard into `root` (around the signed-in player too). */
export function showLeaderboard(root: HTMLElement, ruleset: string): Page {
  void drawLeaderboard(root, ruleset).catch((err: unknown) => root.replaceChildren(refusal(err)));
  return { stop: () => undefined };
}

async function drawPlayNow(root: HTMLElement, stopped: AbortSignal): Promise<void> {
  const client = playerClient();
  if (client === undefined || signedIn() === undefined) {
    root.replaceChildren(signInForm());
    return;
  }
  const { rulesets } = await anonymous.listRulesets({});
  const status = h("p", { "data-testid": "play-status", role: "status" });
  root.replaceChildren(h("h1", {}, t("play.title")), h("p", {}, t("play.text")),
    ...rulesets.map((r) => playForm(r, status, stopped)), status);
  root.dataset["ready"] = "play";
}

function playForm(ruleset: Ruleset, status: HTMLElement, stopped: AbortSignal): HTMLElement {
  const low = h("input", { type: "number", min: String(ruleset.minSeats), max: String(ruleset.maxSeats),
    value: String(ruleset.minSeats), size: 3, "data-testid": `play-min-${ruleset.id}`, "aria-label": t("play.seats") });
  const high = h("input", { type: "number", min: String(ruleset.minSeats), max: String(ruleset.maxSeats),
    value: String(ruleset.maxSeats), size: 3, "data-testid": `play-max-${ruleset.id}`, "aria-label": t("play.seats") });
  const bots = h("input", { type: "number", min: "0", max: "3600", value: "30", size: 5,
    "data-testid": `play-bots-${ruleset.id}` });
  const go = async (event: Event): Promise<void> => {
    event.preventDefault();
    const client = playerClient();
    if (client === undefined) {
      return;
    }
    try {
      const { ticket } = await client.findGame({ ruleset: ruleset.id, minSeats: Number(low.value),
        maxSeats: Number(high.value), botsAfterSeconds: Number(bots.value) });
      if (ticket !== undefined) {
        await wait(ticket.name, status, stopped);
      }
    } catch (err) {
      status.replaceChildren(refusal(err));
    }
  };
  return h("form", { class: "play-now", "data-testid": `play-${ruleset.id}`, onsubmit: (e) => void go(e) },
    h("h2", {}, ruleset.displayName, " ", h("a", { href: `#/leaderboard/${ruleset.id}` }, t("play.leaderboard"))),
    h("label", {}, `${t("play.seats")} `, low, " – ", high), " ",
    h("label", {}, `${t("play.botsAfter")} `, bots), " ",
    h("button", { type: "submit", "data-testid": `play-go-${ruleset.id}` }, t("play.go")));
}

async function wait(name: string, status: HTMLElement, stopped: AbortSignal): Promise<void> {
  const client = playerClient();
  const since = Date.now();
  let cancelled = false;
  const cancel = h("button", { type: "button", "data-testid": "play-cancel", onclick: () => {
    cancelled = true;
    void client?.cancelTicket({ name });
  } }, t("play.cancel"));
  while (client !== undefined && !stopped.aborted && !cancelled) {
    status.replaceChildren(h("span", { "data-testid": "play-waiting" },
      t("play.waiting", { seconds: String(Math.round((Date.now() - since) / 1000)) })), " ", cancel);
    const { ticket } = await client.getTicket({ name });
    if (ticket?.state === TicketState.SEATED) {
      rememberSeat(ticket.game, ticket.seat);
      location.hash = `#/${ticket.game}`;
      return;
    }
    if (ticket?.state === TicketState.CANCELLED) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  status.replaceChildren();
}

async function drawLeaderboard(root: HTMLElement, ruleset: string): Promise<void> {
  const client = playerClient();
  const who = signedIn();
  const top = await anonymous.listLeaderboard({ parent: `rulesets/${ruleset}`, pageSize: 20 });
  const parts: HTMLElement[] = [h("h1", {}, `${t("play.leaderboard")}: ${ruleset}`), table(top.entries, who?.playerId)];
  if (client !== undefined && who !== undefined) {
    const { profile } = await client.getPlayerProfile({ name: "players/me", historySize: 1 });
    const mine = profile?.ratings.find((r) => r.ruleset === ruleset);
    if (mine !== undefined) {
      parts.push(h("p", { "data-testid": "my-rating" }, t("play.yourRating",
        { rating: mine.rating.toFixed(1), played: String(mine.gamesPlayed) })));
      if (mine.rank > 20) {
        const around = await client.listLeaderboard({ parent: `rulesets/${ruleset}`, pageSize: 9, aroundMe: true });
        parts.push(table(around.entries, who.playerId));
      }
    }
  }
  root.replaceChildren(...parts);
  root.dataset["ready"] = "leaderboard";
}

function table(entries: LeaderboardEntry[], me: string | undefined): HTMLElement {
  if (entries.length === 0) {
    return h("p", { "data-testid": "leaderboard-empty" }, t("play.empty"));
  }
  return h("table", { class: "leaderboard", "data-testid": "leaderboard" },
    h("thead", {}, h("tr", {}, ...["play.rank", "play.player", "play.rating", "play.played", "play.won"]
      .map((k) => h("th", {}, t(k as "play.rank"))))),
    h("tbody", {}, ...entries.map((e) => h("tr", e.playerId === me ? { class: "me", "data-testid": "my-row" } : {},
      h("td", {}, String(e.rank)), h("td", {}, e.displayName || e.playerId), h("td", {}, e.rating.toFixed(1)),
      h("td", {}, String(e.gamesPlayed)), h("td", {}, String(e.gamesWon))))));
}
