// A Ticket to Ride game as a seat sees it: the map (ttr/board.ts), every player's public counts and score,
// the face-up cards, and, for a seat, its own hand and tickets. A ticket shows as completed once the seat's
// own routes join its cities (stations borrowing a route count only in the final scoring, which the view
// then reports ticket by ticket). A spectator's view has no private part, so none is drawn.

import { TtrColor, TtrPhase } from "@tabletop/client/browser";
import type { TtrEuropeCatalog, TtrEuropeView, TtrTicket } from "@tabletop/client/browser";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { colorName, paymentText, routeText, ticketText } from "../names.js";
import { drawBoard } from "./board.js";
import { CARD_COLORS, SEAT_COLORS } from "./colors.js";

/** The whole game area of a Ticket to Ride game. */
export function drawTtr(ctx: Context): HTMLElement {
  const catalog = ctx.catalog.catalog.case === "ttrEurope" ? ctx.catalog.catalog.value : undefined;
  const view = ctx.view?.game.case === "ttrEurope" ? ctx.view.game.value : undefined;
  if (catalog === undefined) {
    return h("p", {}, "no catalog");
  }
  return h("div", { class: "ttr" }, drawBoard(catalog, view),
    view === undefined ? null : h("div", { class: "panels" }, players(view, ctx), faceUp(view),
      tunnel(view, ctx), hand(view), tickets(view, catalog, ctx), scores(view, ctx)));
}

// Helpers

const LOCOMOTIVE = "linear-gradient(90deg,#d0312d,#f1c40f,#2e9e4f,#2f6fd6,#9b59b6)";

function players(view: TtrEuropeView, ctx: Context): HTMLElement {
  return h("table", { class: "players", "data-testid": "players" },
    h("tr", {}, ...["", "Player", "Trains", "Stations", "Cards", "Tickets", "Score"].map((t) => h("th", {}, t))),
    ...view.players.map((p) => h("tr", { "data-seat": p.seat, class: view.currentSeat === p.seat ? "turn" : "" },
      h("td", {}, h("span", { class: "dot", style: `background:${SEAT_COLORS[p.seat]}` })),
      h("td", {}, ctx.names[p.seat] ?? `seat ${p.seat}`, view.currentSeat === p.seat ? " ◀ turn" : "",
        view.awaitingSeats.includes(p.seat) && view.currentSeat === undefined ? " (choosing tickets)" : ""),
      h("td", {}, p.trains), h("td", {}, p.stations), h("td", { "data-testid": "card-count" }, p.trainCardCount),
      h("td", {}, p.ticketCount + (p.offeredTicketCount ? ` (+${p.offeredTicketCount} offered)` : "")),
      h("td", {}, p.score))));
}

function faceUp(view: TtrEuropeView): HTMLElement {
  return h("section", { class: "face-up", "data-testid": "face-up" }, h("h3", {}, `Face-up cards · deck ${view.deckCount} · discards ${view.discardCount} · tickets ${view.ticketPileCount}`),
    h("div", { class: "cards" }, ...view.faceUp.map((color, slot) => card(color, undefined, { "data-slot": slot }))),
    h("p", {}, `Phase: ${TtrPhase[view.phase]?.toLowerCase().replace(/_/g, " ")}`));
}

function hand(view: TtrEuropeView): HTMLElement | null {
  if (view.private === undefined) {
    return null;
  }
  return h("section", { class: "hand", "data-testid": "hand" }, h("h3", {}, "Your hand"),
    h("div", { class: "cards" }, ...view.private.hand.filter((c) => c.count > 0).map((c) =>
      card(c.color, c.count, { "data-color": colorName(c.color), "data-count": c.count }))));
}

function tickets(view: TtrEuropeView, catalog: TtrEuropeCatalog, ctx: Context): HTMLElement | null {
  const own = view.private;
  if (own === undefined) {
    return null;
  }
  const scored = view.finalScores.find((s) => s.seat === own.seat);
  const done = (t: TtrTicket): boolean =>
    scored?.tickets.find((r) => r.ticket?.id === t.id)?.completed ?? joined(catalog, view, own.seat, t);
  const row = (t: TtrTicket, state: string): HTMLElement =>
    h("li", { "data-ticket": t.id, "data-state": state, class: state }, ticketText(ctx.catalog, t), t.long ? " (long)" : "",
      state === "offered" ? " — offered" : state === "completed" ? " ✔" : "");
  return h("section", { class: "tickets", "data-testid": "tickets" }, h("h3", {}, "Your tickets"),
    h("ul", {}, ...own.tickets.map((t) => row(t, done(t) ? "completed" : "open")),
      ...own.offeredTickets.map((t) => row(t, "offered"))));
}

function tunnel(view: TtrEuropeView, ctx: Context): HTMLElement | null {
  const t = view.tunnel;
  if (t === undefined) {
    return null;
  }
  return h("section", { class: "tunnel", "data-testid": "tunnel" },
    h("h3", {}, `${ctx.names[t.seat] ?? `seat ${t.seat}`} is digging a tunnel: ${routeText(ctx.catalog, t.routeId)}`),
    h("p", {}, `Played ${paymentText(t.payment)}; revealed ${t.revealed.map(colorName).join(", ")}: ${t.extraCost} more card(s) due.`));
}

function scores(view: TtrEuropeView, ctx: Context): HTMLElement | null {
  if (view.finalScores.length === 0) {
    return null;
  }
  return h("section", { class: "final" }, winnerLine(view, ctx),
    h("table", { class: "scores", "data-testid": "scores" },
      h("tr", {}, ...["Player", "Routes", "Tickets", "Stations", "Express", "Total"].map((t) => h("th", {}, t))),
      ...view.finalScores.map((s) => h("tr", { class: view.winners.includes(s.seat) ? "winner" : "" },
        h("td", {}, ctx.names[s.seat] ?? `seat ${s.seat}`), h("td", {}, s.routePoints), h("td", {}, s.ticketPoints),
        h("td", {}, s.stationPoints), h("td", {}, s.expressBonus), h("td", {}, s.total)))));
}

/** "ann wins with 87 points" (or "ann and bob share the win with 80 points") from the final view's winners. */
function winnerLine(view: TtrEuropeView, ctx: Context): HTMLElement {
  const names = view.winners.map((seat) => ctx.names[seat] ?? `seat ${seat}`);
  const total = view.finalScores.find((s) => s.seat === view.winners[0])?.total ?? 0;
  const who = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1) ?? ""} share the win`
    : `${names[0] ?? "nobody"} wins`;
  return h("h3", { class: "winner-line", "data-testid": "winner" }, `${who} with ${total} points`);
}

function card(color: number, count: number | undefined, attrs: Record<string, string | number>): HTMLElement {
  const fill = color === TtrColor.LOCOMOTIVE ? LOCOMOTIVE : CARD_COLORS[color] ?? "#ddd";
  return h("span", { class: "card", style: `background:${fill}`, title: colorName(color), ...attrs },
    count === undefined ? "" : h("span", { class: "count" }, String(count)));
}

/** Whether `seat`'s own claimed routes join the ticket's two cities. */
function joined(catalog: TtrEuropeCatalog, view: TtrEuropeView, seat: number, ticket: TtrTicket): boolean {
  const parent = new Map<string, string>();
  const find = (city: string): string => {
    let root = city;
    while (parent.has(root) && parent.get(root) !== root) {
      root = parent.get(root) ?? root;
    }
    return root;
  };
  for (const route of catalog.routes) {
    if (view.routeOwners[route.id - 1] === seat) {
      parent.set(find(route.cityA), find(route.cityB));
    }
  }
  return find(ticket.cityA) === find(ticket.cityB);
}
