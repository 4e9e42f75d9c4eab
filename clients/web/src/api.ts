// The page's one way to the server: the generated TypeScript client over Connect (JSON), on the page's own
// origin (the same port serves REST, Connect and these files, so no CORS is involved). A seat's token lives
// in sessionStorage under the game's name: each tab or browser context is its own seat, a reload keeps it,
// and closing the tab forgets it (a token is a bearer secret; it is never put in a URL).

import { createBrowserClient, tabletopErrorDetails } from "@tabletop/client/browser";
import type { GetRulesetResponse, TabletopClient } from "@tabletop/client/browser";

/** A seat held by this tab. */
export interface Credential {
  seat: number;
  token: string;
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

/** A failed call as one line: the server's reason and its message (which says what to do). */
export function errorText(err: unknown): string {
  const details = tabletopErrorDetails(err);
  return `${details.reason || details.codeName}: ${details.message}`;
}

/** GetRuleset, once per page: the catalog is the same for everyone and changes only with a release. */
export function catalog(ruleset: string): Promise<GetRulesetResponse> {
  let reply = catalogs.get(ruleset);
  if (reply === undefined) {
    reply = anonymous.getRuleset({ name: `rulesets/${ruleset}` });
    catalogs.set(ruleset, reply);
  }
  return reply;
}

// Helpers

const KEY = "tabletop:seat:";
const catalogs = new Map<string, Promise<GetRulesetResponse>>();
