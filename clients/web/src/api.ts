// The page's one way to the server: the generated TypeScript client over Connect (JSON), on the page's own
// origin (the same port serves REST, Connect and these files, so no CORS is involved). A seat's token lives
// in sessionStorage under the game's name: each tab or browser context is its own seat, a reload keeps it,
// and closing the tab forgets it (a token is a bearer secret; it is never put in a URL).

import { Code, createBrowserClient, tabletopErrorDetails } from "@tabletop/client/browser";
import type { GetRulesetResponse, TabletopClient } from "@tabletop/client/browser";
import { h } from "./dom.js";
import { has, language, t } from "./i18n/index.js";

/** A seat held by this tab. */
export interface Credential {
  seat: number;
  token: string;
  /** A seat bound to the signed-in player (players.ts): no token, the player's client acts in it. */
  player?: boolean;
}

/** The spectator's client (no token): the lobby, the catalog, views without a private part. */
export const anonymous: TabletopClient = createBrowserClient(location.origin);

/** A client acting for one seat. */
export function seatClient(token: string): TabletopClient {
  return createBrowserClient(location.origin, { token });
}

/** The seat this tab holds in `game`, if any. */
export function loadCredential(game: string): Credential | undefined {
  const raw = sessionStorage.getItem(KEY + game);
  return raw === null ? undefined : (JSON.parse(raw) as Credential);
}

/** Remember the seat this tab took in `game`. */
export function saveCredential(game: string, credential: Credential): void {
  sessionStorage.setItem(KEY + game, JSON.stringify(credential));
}

/** A failed call for the developer: the server's reason (or the status code) and its message. */
export function errorText(err: unknown): string {
  const details = tabletopErrorDetails(err);
  return `${details.reason || details.codeName}: ${details.message}`;
}

/** Whether a failed call never reached the server (network down, server stopped). */
export function unreachable(err: unknown): boolean {
  const code = tabletopErrorDetails(err).code;
  return !tabletopErrorDetails(err).reason && (code === Code.Unavailable || code === Code.Unknown || code === Code.Internal);
}

/** A failed call for the player: a sentence from the wording layer for its reason, with the code and the
 * server's own message only in a details element (for a bug report). */
export function refusalText(err: unknown): string {
  const details = tabletopErrorDetails(err);
  const key = `reason.${details.reason}`;
  if (details.reason !== "" && has(key)) {
    return t(key, { min: details.metadata["min"] ?? 2 });
  }
  return unreachable(err) ? t("refusal.network") : t("refusal.generic");
}

/** The refusal as an element: the sentence, then "Details" folding the code and message. */
export function refusal(err: unknown, testid = "error"): HTMLElement {
  return h("div", { class: "error", role: "alert", "data-testid": testid }, h("span", { class: "sentence" }, refusalText(err)),
    h("details", { class: "refusal-details" }, h("summary", {}, t("refusal.details")), h("code", {}, errorText(err))));
}

/** GetRuleset, once per page and language: the catalog is the same for everyone, changes only with a
 * release, and carries the card and character names and texts in the language asked for. */
export function catalog(ruleset: string): Promise<GetRulesetResponse> {
  const key = `${ruleset}:${language()}`;
  let reply = catalogs.get(key);
  if (reply === undefined) {
    reply = anonymous.getRuleset({ name: `rulesets/${ruleset}`, languageCode: language() } as never);
    reply.catch(() => catalogs.delete(key));
    catalogs.set(key, reply);
  }
  return reply;
}

// Helpers

const KEY = "tabletop:seat:";
const catalogs = new Map<string, Promise<GetRulesetResponse>>();
