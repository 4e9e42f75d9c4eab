// The reference web client's entry: a hash router over three pages, so that the server only ever serves
// "/" and its assets and no client route can shadow an API route.
//
//   #/               the lobby (lobby.ts)
//   #/games/<id>     a game, as this tab's seat or as a spectator (game.ts); this is the join link
//   #/games/<id>/replay/<N>  the game as the spectator saw it at version N, stepped move by move (replay.ts)
//   #/board/<ruleset> the map drawn from the catalog alone (GetRuleset), for frontend developers
//   #/me             My games: sign in as a guest, the player's games and invitations, live (mygames.ts)
//   #/play           Play now: a ticket per ruleset, the wait, then the game (quickplay.ts)
//   #/leaderboard/<ruleset> a ruleset's leaderboard and the player's rating (quickplay.ts)

import "./style.css";
import { catalog, refusal } from "./api.js";
import { h } from "./dom.js";
import { LANGUAGES, language, setLanguage, t } from "./i18n/index.js";
import type { Language } from "./i18n/index.js";
import { openGame } from "./game.js";
import type { Page } from "./game.js";
import { showLobby } from "./lobby.js";
import { showMyGames } from "./mygames.js";
import { openReplay } from "./replay.js";
import { showLeaderboard, showPlayNow } from "./quickplay.js";
import { drawBoard } from "./ttr/board.js";

const root = document.getElementById("app") as HTMLElement;
let page: Page | undefined;

function route(): void {
  page?.stop();
  page = undefined;
  const path = location.hash.replace(/^#/, "") || "/";
  const game = /^\/games\/([^/]+)$/.exec(path);
  const board = /^\/board\/([^/]+)$/.exec(path);
  const leaderboard = /^\/leaderboard\/([a-z0-9-]+)$/.exec(path);
  const replay = /^\/games\/([^/]+)\/replay\/([0-9]{1,9})$/.exec(path);
  if (game?.[1] !== undefined) {
    page = openGame(root, `games/${game[1]}`);
  } else if (replay?.[1] !== undefined && replay[2] !== undefined) {
    page = openReplay(root, `games/${replay[1]}`, Number(replay[2]));
  } else if (path === "/me") {
    page = showMyGames(root);
  } else if (path === "/play") {
    page = showPlayNow(root);
  } else if (leaderboard?.[1] !== undefined) {
    page = showLeaderboard(root, leaderboard[1]);
  } else if (board?.[1] !== undefined) {
    void showBoard(board[1]);
  } else {
    // The lobby draws into a slot of its own after its calls return: if the page has moved on meanwhile
    // (a join link opened while the lobby loads), the late draw lands in the detached slot, not over the game.
    const slot = h("div", { class: "lobby" });
    root.replaceChildren(slot);
    showLobby(slot).catch((err: unknown) => slot.replaceChildren(refusal(err)));
  }
}

async function showBoard(ruleset: string): Promise<void> {
  const reply = await catalog(ruleset);
  const drawn = reply.catalog.case === "ttrEurope" ? drawBoard(reply.catalog.value)
    : h("p", {}, t("app.noMap", { game: reply.ruleset?.displayName ?? ruleset }));
  root.replaceChildren(h("h1", {}, reply.ruleset?.displayName ?? ruleset), drawn);
  root.dataset["ready"] = "board";
}

/** The frame's words and the language switch (the page's one place to change language; redraws the page). */
function frame(): void {
  const nav = document.querySelector("header nav");
  if (nav === null) {
    return;
  }
  const names: Record<Language, string> = { en: "English", cs: "Čeština" };
  const select = h("select", { "data-testid": "language", "aria-label": t("app.language"),
    onchange: (event) => {
      setLanguage((event.target as HTMLSelectElement).value as Language);
      frame();
      route();
    } }, ...LANGUAGES.map((code) => h("option", { value: code, lang: code, selected: code === language() }, names[code])));
  nav.replaceChildren(h("a", { href: "#/" }, t("app.lobby")), " ", h("a", { href: "#/me" }, t("app.myGames")), " ", h("a", { href: "#/play" }, t("app.play")), " ", h("a", { href: "/docs" }, t("app.explorer")), " ", select);
}

window.addEventListener("hashchange", route);
frame();
route();
