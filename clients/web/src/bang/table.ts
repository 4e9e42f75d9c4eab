// A BANG! game as a seat sees it: the players around a table in seat order (the viewer at the bottom),
// each with character, life, hand count, cards in play and the role once it is revealed (the Sheriff's
// from the start, the viewer's own always); the deck and the discard pile in the middle; the viewer's own
// hand; and the pending request (bang/requests.ts) asked as the question it is. Only what the view holds
// is drawn: another seat's hand is a count, because the server sends nothing more. In an Armed & Dangerous
// game (the view has a cube supply) the supply is in the middle, and each player shows the cubes on his
// character and on each of his orange cards in play: 32 in all.

import { BangDrawSource, BangRole } from "@tabletop/client/browser";
import type { Action, BangPlayer, BangView } from "@tabletop/client/browser";
import { actionable, describe, offering } from "../actions.js";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { t, tn } from "../i18n/index.js";
import { characterName, characterText, nameOf } from "../names.js";
import { cardChip, cubeMarks } from "./cards.js";
import { question } from "./requests.js";

/** The whole game area of a BANG! game. */
export function drawBang(ctx: Context): HTMLElement {
  const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
  if (view === undefined) {
    return h("p", {}, t("game.waitingStart"));
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
  // The draw phase on the table: the deck (and, for Pedro Ramirez, the discard pile) is clicked to draw.
  const deck = offering(h("div", { class: "deck", "data-testid": "bang-deck" }, t("bang.deck", { n: view.deckCount })), ctx,
    t("act.drawBangDeck"), t("act.drawBangDeck"), draws(ctx, [BangDrawSource.DECK, BangDrawSource.UNSPECIFIED]));
  const pile = offering(h("div", { "data-testid": "discard" }, `${t("bang.discard")} `, view.discardTop ? cardChip(view.discardTop, ctx.catalog) : t("bang.empty"), ` (${view.discardCount})`),
    ctx, t("act.drawDiscard"), t("act.drawDiscard"), draws(ctx, [BangDrawSource.DISCARD]));
  const center = h("div", { class: "center" }, deck,
    view.cubeSupply === undefined ? null
      : h("div", { "data-testid": "cube-supply", "data-cubes": view.cubeSupply }, t("bang.supply", { n: view.cubeSupply })),
    pile,
    h("div", {}, t("bang.turn", { n: view.turnNumber, name: nameOf(ctx.names, view.turnSeat) })),
    view.winners.length > 0 ? h("div", { class: "winners", "data-testid": "winners" },
      t("bang.won", { names: view.winners.map((s) => nameOf(ctx.names, s)).join(", ") })) : null);
  return h("div", { class: "bang" },
    question(view, ctx),
    h("div", { class: "table", "data-testid": "table" }, center, ...seats),
    view.viewerSeat === undefined ? null : h("section", { class: "hand", "data-testid": "hand" },
      h("h3", {}, t("bang.hand", { n: view.hand.length })),
      h("div", { class: "cards" }, ...view.hand.map((c) => playable(cardChip(c, ctx.catalog), c.id, ctx)))));
}

/** A card of the viewer's (in hand or in play) as a button when some legal action is about it: a click
 * plays, answers with, discards or uses it, asking first which target or way when there are several. */
function playable(chip: HTMLElement, card: string, ctx: Context): HTMLElement {
  const offer = ctx.offer;
  const actions = (ctx.actions ?? []).filter((action) => {
    const kind = action.game.case === "bang" ? action.game.value.kind : undefined;
    return kind !== undefined && (kind.case === "play" || kind.case === "respond" || kind.case === "discard"
      || kind.case === "use" || kind.case === "barrel") && kind.value.card === card;
  });
  if (offer !== undefined && actions.length > 0) {
    // The label starts with the chip's visible words (WCAG 2.5.3, label in name): "Panic! J♥: choose how to play it".
    const shown = (chip.textContent ?? card).replace(/\s+/g, " ").trim();
    const name = chip.firstChild?.textContent ?? card;
    actionable(chip, t("bang.chooseTarget", { card: shown }), () => offer(t("bang.chooseTarget", { card: name }), actions));
    chip.dataset["actions"] = String(actions.length);
  }
  return chip;
}

// Helpers

/** The seat's legal draws from one of `sources`. */
function draws(ctx: Context, sources: BangDrawSource[]): Action[] {
  return (ctx.actions ?? []).filter((action) => action.game.case === "bang" && action.game.value.kind.case === "draw"
    && sources.includes(action.game.value.kind.value.source));
}

function seat(player: BangPlayer, view: BangView, ctx: Context, style: string): HTMLElement {
  const classes = ["seat", player.alive ? "" : "dead", view.turnSeat === player.seat ? "turn" : "",
    view.viewerSeat === player.seat ? "me" : "", view.toAct.includes(player.seat) ? "to-act" : ""].filter(Boolean);
  const roleName = BangRole[player.role] ?? "UNSPECIFIED";
  const role = player.role === BangRole.UNSPECIFIED ? "role hidden" : roleName.toLowerCase();
  const roleKey = `role.${roleName}` as const;
  const armed = view.cubeSupply !== undefined;
  const cubes = new Map(player.cardCubes.map((c) => [c.cardId, c.cubes]));
  const element = h("div", { class: classes.join(" "), style, "data-seat": player.seat, "data-hand-count": player.handCount },
    h("strong", {}, nameOf(ctx.names, player.seat)), view.turnSeat === player.seat ? " ◀" : "",
    h("div", { class: "character", title: characterText(ctx.catalog, player.character) }, characterName(ctx.catalog, player.character),
      armed ? cubeMarks(player.cubes, "character-cubes") : null),
    h("div", { class: "life", "data-life": player.life, "aria-label": t("bang.life", { n: player.life, max: player.maxLife }) }, player.alive
      ? `${"♥".repeat(Math.max(player.life, 0))}${"♡".repeat(Math.max(player.maxLife - player.life, 0))}` : t("bang.eliminated")),
    h("div", { class: "role", "data-role": role }, player.role === BangRole.UNSPECIFIED ? t("bang.roleHidden")
      : roleKey === "role.SHERIFF" || roleKey === "role.DEPUTY" || roleKey === "role.OUTLAW" || roleKey === "role.RENEGADE" ? t(roleKey) : role),
    h("div", {}, tn("bang.handCount", player.handCount)),
    h("div", { class: "in-play" }, ...player.inPlay.map((c) => {
      const chip = cardChip(c, ctx.catalog, armed ? cubes.get(c.id) : undefined);
      return player.seat === view.viewerSeat ? playable(chip, c.id, ctx) : chip;
    })));
  return seatChoice(element, player.seat, ctx);
}

/** A seat the viewer may choose now (Jesse Jones drawing from a player, passing the Bomb, any `choose` of a
 * seat) as a button: a click sends that choice, or asks which when several name this seat. A seat holding
 * cards that are buttons themselves (the viewer's own) offers the choice on its name instead: a button is
 * never inside another. */
function seatChoice(element: HTMLElement, seat: number, ctx: Context): HTMLElement {
  const actions = (ctx.actions ?? []).filter((action) => {
    const kind = action.game.case === "bang" ? action.game.value.kind : undefined;
    return (kind?.case === "choose" && kind.value.targetSeat === seat)
      || (kind?.case === "draw" && kind.value.source === BangDrawSource.PLAYER && kind.value.targetSeat === seat);
  });
  const first = actions[0];
  if (ctx.offer === undefined || first === undefined) {
    return element;
  }
  const name = nameOf(ctx.names, seat);
  const label = actions.length === 1 ? describe(first, ctx) : t("act.chooseSeat", { name });
  const target = element.querySelector(".actionable") === null ? element : element.querySelector("strong") ?? element;
  offering(target as HTMLElement, ctx, label, label, actions);
  element.classList.add("choosable");
  return element;
}
