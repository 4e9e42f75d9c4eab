// The reference web client's entry: a hash router over three pages, so that the server only ever serves
// "/" and its assets and no client route can shadow an API route.
//
//   #/               the lobby (lobby.ts)
//   #/games/<id>     a game, as this tab's seat or as a spectator (game.ts); this is the join link
//   #/board/<ruleset> the map drawn from the catalog alone (GetRuleset), for frontend developers

import "./style.css";
import { catalog, errorText } from "./api.js";
import { h } from "./dom.js";
import { openGame } from "./game.js";
import type { Page } from "./game.js";
import { showLobby } from "./lobby.js";
import { drawBoard } from "./ttr/board.js";

const root = document.getElementById("app") as HTMLElement;
let page: Page | undefined;

function route(): void {
  page?.stop();
  page = undefined;
  const path = location.hash.replace(/^#/, "") || "/";
  const game = /^\/games\/([^/]+)$/.exec(path);
  const board = /^\/board\/([^/]+)$/.exec(path);
  if (game?.[1] !== undefined) {
    page = openGame(root, `games/${game[1]}`);
  } else if (board?.[1] !== undefined) {
    void showBoard(board[1]);
  } else {
    showLobby(root).catch((err: unknown) => root.replaceChildren(h("p", { class: "error" }, errorText(err))));
  }
}

async function showBoard(ruleset: string): Promise<void> {
  const reply = await catalog(ruleset);
  const drawn = reply.catalog.case === "ttrEurope" ? drawBoard(reply.catalog.value)
    : h("p", {}, `${reply.ruleset?.displayName ?? ruleset} has no map: its games are drawn as a table.`);
  root.replaceChildren(h("h1", {}, reply.ruleset?.displayName ?? ruleset), drawn);
  root.dataset["ready"] = "board";
}

window.addEventListener("hashchange", route);
route();
