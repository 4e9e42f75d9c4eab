// A Ticket to Ride game as a seat sees it: the map (ttr/board.ts), every player's public counts and score,
// the face-up cards, and, for a seat, its own hand and tickets. A ticket shows as completed once the seat's
// own routes join its cities (stations borrowing a route count only in the final scoring, which the view
// then reports ticket by ticket). A spectator's view has no private part, so none is drawn.

import { TtrColor, TtrPhase } from "@tabletop/client/browser";
import type { Action, TtrEuropeAction, TtrEuropeCatalog, TtrEuropeView, TtrTicket } from "@tabletop/client/browser";
import { actionable } from "../actions.js";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { has, t } from "../i18n/index.js";

const tr = t;
import { colorName, nameOf, paymentText, routeText, ticketText } from "../names.js";
import { drawBoard } from "./board.js";
import type { Claims } from "./board.js";
import { CARD_COLORS, SEAT_COLORS } from "./colors.js";

/** The whole game area of a Ticket to Ride game. */
export function drawTtr(ctx: Context): HTMLElement {
  const catalog = ctx.catalog.catalog.case === "ttrEurope" ? ctx.catalog.catalog.value : undefined;
  const view = ctx.view?.game.case === "ttrEurope" ? ctx.view.game.value : undefined;
  if (catalog === undefined) {
    return h("p", {}, t("game.noCatalog"));
  }
  return h("div", { class: "ttr" }, drawBoard(catalog, view, claims(ctx)),
    view === undefined ? null : h("div", { class: "panels" }, players(view, ctx), faceUp(view, ctx),
      tunnel(view, ctx), hand(view), tickets(view, catalog, ctx), scores(view, ctx)));
}

/** The routes the seat may claim now, from its legal claimRoute actions: a click asks how to pay. */
function claims(ctx: Context): Claims | undefined {
  const offer = ctx.offer;
  if (offer === undefined) {
    return undefined;
  }
  const byRoute = new Map<number, Action[]>();
  for (const action of ctx.actions ?? []) {
    const kind = action.game.case === "ttrEurope" ? action.game.value.kind : undefined;
    if (kind?.case === "claimRoute") {
      byRoute.set(kind.value.routeId, [...(byRoute.get(kind.value.routeId) ?? []), action]);
    }
  }
  const labels = new Map([...byRoute.keys()].map((id) => [id, t("ttr.claimOn", { route: routeText(ctx.catalog, id) })]));
  // Stations: a city is clicked to build one there, then the page asks how to pay.
  const byCity = new Map<string, Action[]>();
  for (const action of ctx.actions ?? []) {
    const kind = action.game.case === "ttrEurope" ? action.game.value.kind : undefined;
    if (kind?.case === "buildStation") {
      byCity.set(kind.value.city, [...(byCity.get(kind.value.city) ?? []), action]);
    }
  }
  const catalog = ctx.catalog.catalog.case === "ttrEurope" ? ctx.catalog.catalog.value : undefined;
  const cityLabel = (name: string): string => catalog?.cities.find((c) => c.name === name)?.label ?? name;
  const stations = new Map([...byCity.keys()].map((city) => [city, t("ttr.stationOn", { city: cityLabel(city) })]));
  return { labels, claim: (id) => offer(labels.get(id) ?? "", byRoute.get(id) ?? []),
    stations, build: (city) => offer(stations.get(city) ?? "", byCity.get(city) ?? []) };
}

/** The seat's legal card draws: the face-up slot (undefined: the deck) with its action. */
function draws(ctx: Context): { slot: number | undefined; action: Action }[] {
  const found: { slot: number | undefined; action: Action }[] = [];
  for (const action of ctx.actions ?? []) {
    const kind = action.game.case === "ttrEurope" ? action.game.value.kind : undefined;
    if (kind?.case === "drawTrainCard") {
      found.push({ slot: kind.value.faceUpSlot, action });
    }
  }
  return found;
}

/** The seat's legal ticket choices: the ticket ids each keeps, with its action. */
function keeps(ctx: Context): { ids: number[]; action: Action }[] {
  const found: { ids: number[]; action: Action }[] = [];
  for (const action of ctx.actions ?? []) {
    const kind = action.game.case === "ttrEurope" ? action.game.value.kind : undefined;
    if (kind?.case === "keepTickets") {
      found.push({ ids: [...kind.value.ticketIds].sort((a, b) => a - b), action });
    }
  }
  return found;
}

// Helpers

const LOCOMOTIVE = "linear-gradient(90deg,#d0312d,#f1c40f,#2e9e4f,#2f6fd6,#9b59b6)";

function players(view: TtrEuropeView, ctx: Context): HTMLElement {
  return h("table", { class: "players", "data-testid": "players" },
    h("tr", {}, h("th", {}), ...(["ttr.player", "ttr.trains", "ttr.stations", "ttr.cards", "ttr.tickets", "ttr.score"] as const)
      .map((key) => h("th", {}, t(key)))),
    ...view.players.map((p) => h("tr", { "data-seat": p.seat, class: view.currentSeat === p.seat ? "turn" : "" },
      h("td", {}, h("span", { class: "dot", style: `background:${SEAT_COLORS[p.seat]}` })),
      h("td", {}, nameOf(ctx.names, p.seat), view.currentSeat === p.seat ? ` ${t("ttr.turn")}` : "",
        view.awaitingSeats.includes(p.seat) && view.currentSeat === undefined ? ` ${t("ttr.choosingTickets")}` : ""),
      h("td", {}, p.trains), h("td", {}, p.stations), h("td", { "data-testid": "card-count" }, p.trainCardCount),
      h("td", {}, `${p.ticketCount}${p.offeredTicketCount ? ` ${t("ttr.offeredCount", { n: p.offeredTicketCount })}` : ""}`),
      h("td", {}, p.score))));
}

function faceUp(view: TtrEuropeView, ctx: Context): HTMLElement {
  const legal = draws(ctx);
  const cards = view.faceUp.map((color, slot) => {
    const element = card(color, undefined, { "data-slot": slot });
    const take = legal.find((d) => d.slot === slot);
    if (take !== undefined && ctx.offer !== undefined) {
      const offer = ctx.offer;
      actionable(element, t("act.takeFaceUp", { color: colorName(color) }), () => offer("", [take.action]));
    }
    return element;
  });
  const deck = legal.find((d) => d.slot === undefined);
  const offer = ctx.offer;
  const ticketDraw = (ctx.actions ?? []).find((a) => a.game.case === "ttrEurope" && a.game.value.kind.case === "drawTickets");
  return h("section", { class: "face-up", "data-testid": "face-up" }, h("h3", {}, t("ttr.faceUp", { deck: view.deckCount, discards: view.discardCount, tickets: view.ticketPileCount })),
    h("div", { class: "cards" }, ...cards,
      deck === undefined || offer === undefined ? null : h("button", { type: "button", class: "deck", "data-testid": "draw-deck",
        onclick: () => offer("", [deck.action]) }, t("act.drawDeck")),
      // The destination-ticket pile: clicked to draw tickets (then the Keep form asks which to keep).
      ticketDraw === undefined || offer === undefined ? null : h("button", { type: "button", class: "deck tickets-pile",
        "data-testid": "draw-tickets", onclick: () => offer("", [ticketDraw]) },
        t("ttr.ticketPile", { n: view.ticketPileCount }))),
    h("p", {}, t("ttr.phase", { phase: phaseName(view.phase) })));
}

function hand(view: TtrEuropeView): HTMLElement | null {
  if (view.private === undefined) {
    return null;
  }
  return h("section", { class: "hand", "data-testid": "hand" }, h("h3", {}, t("ttr.hand")),
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
    h("li", { "data-ticket": t.id, "data-state": state, class: state }, ticketText(ctx.catalog, t), t.long ? ` ${tr("ttr.long")}` : "",
      state === "offered" ? ` — ${tr("ttr.offered")}` : state === "completed" ? " ✔" : "");
  const choices = keeps(ctx);
  return h("section", { class: "tickets", "data-testid": "tickets" }, h("h3", {}, tr("ttr.yourTickets")),
    h("ul", {}, ...own.tickets.map((t) => row(t, done(t) ? "completed" : "open")),
      ...(choices.length > 0 ? [] : own.offeredTickets.map((t) => row(t, "offered")))),
    choices.length > 0 && ctx.offer !== undefined ? keepForm(own.offeredTickets, choices, ctx, ctx.offer) : null);
}

/** The offered tickets as check boxes and one Keep button, enabled only when the ticked tickets are a
 * choice the rules allow (at least the minimum: 2 of the first 5, 1 of 3 later). */
function keepForm(offered: TtrTicket[], choices: { ids: number[]; action: Action }[], ctx: Context,
  offer: (title: string, actions: Action[]) => void): HTMLElement {
  const min = Math.min(...choices.map((c) => c.ids.length));
  const boxes = offered.map((ticket) => ({ ticket, input: h("input", { type: "checkbox", "data-ticket": ticket.id, checked: true }) }));
  const button = h("button", { type: "submit", "data-testid": "keep-tickets" }, tr("ttr.keep"));
  const chosen = (): { ids: number[]; action: Action } | undefined => {
    const ids = boxes.filter((b) => b.input.checked).map((b) => b.ticket.id).sort((a, b) => a - b);
    return choices.find((c) => c.ids.join() === ids.join());
  };
  const count = h("span", { class: "keep-count", "aria-live": "polite" });
  const update = (): void => {
    button.disabled = chosen() === undefined;
    count.textContent = tr("ttr.keepCount", { n: boxes.filter((b) => b.input.checked).length, of: boxes.length });
  };
  for (const box of boxes) {
    box.input.addEventListener("change", update);
  }
  update();
  return h("form", { class: "keep", "data-testid": "keep-form", onsubmit: (event) => {
    event.preventDefault();
    const choice = chosen();
    if (choice !== undefined) {
      offer("", [choice.action]);
    }
  } }, h("fieldset", {}, h("legend", {}, tr("ttr.keepTitle", { min })),
    ...boxes.map((b) => h("label", { class: "ticket-choice", "data-ticket": b.ticket.id, "data-state": "offered" }, b.input,
      ` ${ticketText(ctx.catalog, b.ticket)}${b.ticket.long ? ` ${tr("ttr.long")}` : ""}`))), count, " ", button);
}

function tunnel(view: TtrEuropeView, ctx: Context): HTMLElement | null {
  const t = view.tunnel;
  if (t === undefined) {
    return null;
  }
  return h("section", { class: "tunnel", "data-testid": "tunnel" },
    h("h3", {}, tr("ttr.tunnel", { name: nameOf(ctx.names, t.seat), route: routeText(ctx.catalog, t.routeId) })),
    h("p", {}, tr("ttr.tunnelPaid", { payment: paymentText(t.payment), revealed: t.revealed.map(colorName).join(", "), n: t.extraCost })));
}

function scores(view: TtrEuropeView, ctx: Context): HTMLElement | null {
  if (view.finalScores.length === 0) {
    return null;
  }
  return h("section", { class: "final" }, winnerLine(view, ctx),
    h("table", { class: "scores", "data-testid": "scores" },
      h("tr", {}, ...(["ttr.player", "ttr.routes", "ttr.tickets", "ttr.stations", "ttr.express", "ttr.total"] as const)
        .map((key) => h("th", {}, t(key)))),
      ...view.finalScores.map((s) => h("tr", { class: view.winners.includes(s.seat) ? "winner" : "" },
        h("td", {}, nameOf(ctx.names, s.seat)), h("td", {}, s.routePoints), h("td", {}, s.ticketPoints),
        h("td", {}, s.stationPoints), h("td", {}, s.expressBonus), h("td", {}, s.total)))));
}

/** "ann wins with 87 points" (or "ann and bob share the win with 80 points") from the final view's winners. */
function winnerLine(view: TtrEuropeView, ctx: Context): HTMLElement {
  const names = view.winners.map((seat) => nameOf(ctx.names, seat));
  const total = view.finalScores.find((s) => s.seat === view.winners[0])?.total ?? 0;
  const line = names.length > 1
    ? t("ttr.shareWin", { names: t("ttr.and", { a: names.slice(0, -1).join(", "), b: names.at(-1) ?? "" }), n: total })
    : t("ttr.wins", { name: names[0] ?? t("ttr.nobody"), n: total });
  return h("h3", { class: "winner-line", "data-testid": "winner" }, line);
}

function card(color: number, count: number | undefined, attrs: Record<string, string | number>): HTMLElement {
  const fill = color === TtrColor.LOCOMOTIVE ? LOCOMOTIVE : CARD_COLORS[color] ?? "#ddd";
  return h("span", { class: "card", style: `background:${fill}`, title: colorName(color), role: "img",
    "aria-label": count === undefined ? colorName(color) : `${count}× ${colorName(color)}`, ...attrs },
    count === undefined ? "" : h("span", { class: "count" }, String(count)));
}

function phaseName(phase: TtrPhase): string {
  const key = `ttr.phase.${TtrPhase[phase] ?? "UNSPECIFIED"}`;
  return has(key) ? t(key) : (TtrPhase[phase] ?? "").toLowerCase().replace(/_/g, " ");
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
