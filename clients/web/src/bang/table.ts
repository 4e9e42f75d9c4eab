// A BANG! game as a seat sees it: the players around a table in seat order (the viewer at the bottom),
// each with character, life, hand count, cards in play and the role once it is revealed (the Sheriff's
// from the start, the viewer's own always); the deck and the discard pile in the middle; the viewer's own
// hand; and the pending request (bang/requests.ts) asked as the question it is. Only what the view holds
// is drawn: another seat's hand is a count, because the server sends nothing more. In an Armed & Dangerous
// game (the view has a cube supply) the supply is in the middle, and each player shows the cubes on his
// character and on each of his orange cards in play: 32 in all.

import { BangRole } from "@tabletop/client/browser";
import type { BangPlayer, BangView } from "@tabletop/client/browser";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { characterName } from "../names.js";
import { cardChip, cubeMarks } from "./cards.js";
import { question } from "./requests.js";

/** The whole game area of a BANG! game. */
export function drawBang(ctx: Context): HTMLElement {
  const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
  if (view === undefined) {
    return h("p", {}, "Waiting for the game to start.");
  }
  const n = view.players.length;
  const bottom = view.viewerSeat ?? 0;
  const seats = view.players.map((player) => {
    // Clockwise from the bottom: the viewer, then the next seats in turn order.
    const angle = Math.PI / 2 + (2 * Math.PI * ((player.seat - bottom + n) % n)) / n;
    const left = 50 + 38 * Math.cos(angle);
    const top = 50 + 38 * Math.sin(angle);
    return seat(player, view, ctx, `left:${left.toFixed(1)}%;top:${top.toFixed(1)}%`);
  });
  const center = h("div", { class: "center" }, h("div", {}, `Deck ${view.deckCount}`),
    view.cubeSupply === undefined ? null
      : h("div", { "data-testid": "cube-supply", "data-cubes": view.cubeSupply }, `Cube supply: ${view.cubeSupply}`),
    h("div", { "data-testid": "discard" }, "Discard ", view.discardTop ? cardChip(view.discardTop, ctx.catalog) : "empty", ` (${view.discardCount})`),
    h("div", {}, `Turn ${view.turnNumber}: ${ctx.names[view.turnSeat] ?? ""}`),
    view.winners.length > 0 ? h("div", { class: "winners", "data-testid": "winners" },
      `Won: ${view.winners.map((s) => ctx.names[s] ?? s).join(", ")}`) : null);
  return h("div", { class: "bang" },
    question(view, ctx),
    h("div", { class: "table", "data-testid": "table" }, center, ...seats),
    view.viewerSeat === undefined ? null : h("section", { class: "hand", "data-testid": "hand" },
      h("h3", {}, `Your hand (${view.hand.length})`), h("div", { class: "cards" }, ...view.hand.map((c) => cardChip(c, ctx.catalog)))));
}

// Helpers

function seat(player: BangPlayer, view: BangView, ctx: Context, style: string): HTMLElement {
  const classes = ["seat", player.alive ? "" : "dead", view.turnSeat === player.seat ? "turn" : "",
    view.viewerSeat === player.seat ? "me" : "", view.toAct.includes(player.seat) ? "to-act" : ""].filter(Boolean);
  const role = player.role === BangRole.UNSPECIFIED ? "role hidden" : BangRole[player.role]?.toLowerCase() ?? "";
  const armed = view.cubeSupply !== undefined;
  const cubes = new Map(player.cardCubes.map((c) => [c.cardId, c.cubes]));
  return h("div", { class: classes.join(" "), style, "data-seat": player.seat, "data-hand-count": player.handCount },
    h("strong", {}, ctx.names[player.seat] ?? `seat ${player.seat}`), view.turnSeat === player.seat ? " ◀" : "",
    h("div", {}, characterName(ctx.catalog, player.character), armed ? cubeMarks(player.cubes, "character-cubes") : null),
    h("div", { class: "life", "data-life": player.life }, player.alive
      ? `${"♥".repeat(Math.max(player.life, 0))}${"♡".repeat(Math.max(player.maxLife - player.life, 0))}` : "✝ eliminated"),
    h("div", { class: "role", "data-role": role }, role),
    h("div", {}, `${player.handCount} card${player.handCount === 1 ? "" : "s"} in hand`),
    h("div", { class: "in-play" }, ...player.inPlay.map((c) => cardChip(c, ctx.catalog, armed ? cubes.get(c.id) : undefined))));
}
