// Words for what the contract holds as ids: colours, routes, tickets, BANG! cards and characters, all looked
// up in the catalog (GetRuleset) or the caller's own view, never hard-coded beside them.

import { BangSuit, TtrColor } from "@tabletop/client/browser";
import type { BangCard, BangView, GetRulesetResponse, Seat, TtrPayment, TtrTicket } from "@tabletop/client/browser";
import { has, t, tn } from "./i18n/index.js";

/**
 * Every seat's name, in seat order: its display name, or for a bot's seat without one of its own (empty, or
 * the server's default "basic bot") the bot's kind numbered among the seats of that kind ("Basic bot 1",
 * "Basic bot 2"), or "seat 3" for a seat nobody holds yet.
 */
export function seatNames(seats: readonly Seat[]): string[] {
  const counts = new Map<string, number>();
  return seats.map((s) => {
    if (s.bot !== "" && (s.displayName === "" || s.displayName === `${s.bot} bot`)) {
      const n = (counts.get(s.bot) ?? 0) + 1;
      counts.set(s.bot, n);
      const key = `bot.${s.bot}`;
      const kind = has(key) ? t(key) : t("bot.other", { kind: `${s.bot.charAt(0).toUpperCase()}${s.bot.slice(1).replaceAll("_", " ")}` });
      return t("seat.bot", { kind, n });
    }
    return s.displayName || t("seat.numbered", { n: s.index });
  });
}

/** A seat's name from a list of names, or "seat 3" / "someone". */
export function nameOf(names: readonly string[], seat: number | undefined): string {
  return seat === undefined ? t("seat.someone") : names[seat] ?? t("seat.numbered", { n: seat });
}

/** A colour's name ("red", "locomotive"). */
export function colorName(color: TtrColor): string {
  const key = `color.${TtrColor[color] ?? "UNSPECIFIED"}`;
  return has(key) ? t(key) : t("color.UNSPECIFIED");
}

/** "3 red + 1 locomotive". */
export function paymentText(payment: TtrPayment | undefined): string {
  if (payment === undefined) {
    return t("ttr.nothing");
  }
  const parts = [];
  if (payment.colorCards > 0) {
    parts.push(t("ttr.colorCards", { n: payment.colorCards, color: colorName(payment.color) }));
  }
  if (payment.locomotives > 0) {
    parts.push(tn("ttr.locomotives", payment.locomotives));
  }
  return parts.join(" + ") || t("ttr.nothing");
}

/** "Berlin – Wien" for a route id. */
export function routeText(reply: GetRulesetResponse, id: number): string {
  const route = reply.catalog.case === "ttrEurope" ? reply.catalog.value.routes.find((r) => r.id === id) : undefined;
  if (route === undefined) {
    return t("ttr.routeUnknown", { id });
  }
  const marks = [route.tunnel ? t("ttr.tunnelMark") : "",
    route.ferryLocomotives > 0 ? t("ttr.ferryMark", { n: route.ferryLocomotives }) : ""];
  return t("ttr.route", { a: cityLabel(reply, route.cityA), b: cityLabel(reply, route.cityB), length: route.length,
    color: colorName(route.color), marks: marks.filter(Boolean).map((m) => `, ${m}`).join("") });
}

/** A city's printed label. */
export function cityLabel(reply: GetRulesetResponse, name: string): string {
  if (reply.catalog.case !== "ttrEurope") {
    return name;
  }
  return reply.catalog.value.cities.find((c) => c.name === name)?.label ?? name;
}

/** "Amsterdam – Wilno, 12". */
export function ticketText(reply: GetRulesetResponse, ticket: TtrTicket): string {
  return t("ttr.ticket", { a: cityLabel(reply, ticket.cityA), b: cityLabel(reply, ticket.cityB), points: ticket.points });
}

/** A BANG! card id's name as the viewer knows it: from its hand, the cards in play or the request. */
export function cardName(reply: GetRulesetResponse, view: BangView | undefined, id: string): string {
  const card = knownCards(view).get(id);
  return card === undefined ? id : `${cardTitle(reply, card.name)} ${cardMark(card)}`;
}

/** A BANG! card key's printed name ("cat_balou" -> "Cat Balou"). */
export function cardTitle(reply: GetRulesetResponse, key: string): string {
  if (reply.catalog.case !== "bang") {
    return key;
  }
  return reply.catalog.value.cards.find((c) => c.key === key)?.name ?? key;
}

/** Armed & Dangerous: the cubes one purchase of a card's upgrade costs (0: no upgrade). */
export function upgradeCost(reply: GetRulesetResponse, key: string): number {
  return reply.catalog.case === "bang" ? reply.catalog.value.cards.find((c) => c.key === key)?.upgradeCost ?? 0 : 0;
}

/** Armed & Dangerous: the cubes using an orange card costs, paid from its own cubes (0: none). */
export function cubeCost(reply: GetRulesetResponse, key: string): number {
  return reply.catalog.case === "bang" ? reply.catalog.value.cards.find((c) => c.key === key)?.cubeCost ?? 0 : 0;
}

/** The printed upgrade of a card, from its text ("Upgrade (repeatable): 2 cubes ... each extra card."), or "". */
export function upgradeText(reply: GetRulesetResponse, key: string): string {
  const text = cardText(reply, key);
  const at = Math.max(text.indexOf("Upgrade"), text.indexOf("Vylepšení"));
  return at < 0 ? "" : text.slice(at);
}

/** What a card does, as the catalog prints it (in the page's language). */
export function cardText(reply: GetRulesetResponse, key: string): string {
  return reply.catalog.case === "bang" ? reply.catalog.value.cards.find((c) => c.key === key)?.text ?? "" : "";
}

/** A character's ability, as the catalog prints it. */
export function characterText(reply: GetRulesetResponse, key: string): string {
  return reply.catalog.case === "bang" ? reply.catalog.value.characters.find((c) => c.key === key)?.text ?? "" : "";
}

/** A counted noun ("3 cubes"). */
export function cubesText(n: number): string {
  return tn("bang.cubes", n);
}

/** "7♥" (the rank and suit that draw! checks read). */
export function cardMark(card: BangCard): string {
  const suit = { [BangSuit.HEARTS]: "♥", [BangSuit.DIAMONDS]: "♦", [BangSuit.CLUBS]: "♣", [BangSuit.SPADES]: "♠" }[
    card.suit as number] ?? "";
  return `${card.rank}${suit}`;
}

/** A character key's printed name. */
export function characterName(reply: GetRulesetResponse, key: string): string {
  if (reply.catalog.case !== "bang") {
    return key;
  }
  return reply.catalog.value.characters.find((c) => c.key === key)?.name ?? key;
}

// Helpers

function knownCards(view: BangView | undefined): Map<string, BangCard> {
  const cards = new Map<string, BangCard>();
  for (const card of [...(view?.hand ?? []), ...(view?.players ?? []).flatMap((p) => p.inPlay),
    ...(view?.pending ?? []).flatMap((r) => [...r.cards, ...(r.sourceCard ? [r.sourceCard] : [])]),
    ...(view?.discardTop ? [view.discardTop] : [])]) {
    cards.set(card.id, card);
  }
  return cards;
}
