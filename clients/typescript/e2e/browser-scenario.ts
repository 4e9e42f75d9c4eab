// A game played from a browser page through the browser entry only, as a web
// frontend would: create, join, list legal actions, watch (a live server stream),
// act, see the event arrive, read the log, and one refused action with its reason.
// tests/clients/test_typescript_browser.py bundles it with esbuild (global
// `TabletopScenario`), serves it from another origin and runs it in Chromium.

import { createBrowserClient, tabletopErrorDetails } from "../src/browser.js";
import type { BrowserClientOptions } from "../src/browser.js";

/** What the page reports back to the test. */
export interface ScenarioResult {
  name: string;
  seat: number;
  actedVersion: string;
  watchedVersion: string;
  watchedEvents: number;
  refusedCode: string;
  refusedReason: string;
  logVersion: string;
}

export async function play(baseUrl: string, protocol: BrowserClientOptions["protocol"]): Promise<ScenarioResult> {
  const lobby = createBrowserClient(baseUrl, { protocol });
  const created = await lobby.createGame({ ruleset: "ttr-europe", seatCount: 2, displayNames: ["ann"] });
  const name = created.game?.name ?? "";
  const tokens = new Map<number, string>([[0, created.credentials[0]?.playerToken ?? ""]]);
  const joined = await lobby.joinGame({ name, displayName: "bob" });
  tokens.set(joined.credential?.seat ?? -1, joined.credential?.playerToken ?? "");

  for (const [seat, token] of tokens) {
    const player = createBrowserClient(baseUrl, { protocol, token });
    const legal = await player.listLegalActions({ name });
    const action = legal.actions[0];
    if (action === undefined) {
      continue;
    }
    const watch = new AbortController();
    const stream = player.watchGame({ name, fromVersion: legal.version }, { signal: watch.signal, timeoutMs: 0 });
    const next = stream[Symbol.asyncIterator]().next();
    const acted = await player.submitAction({ name, action, expectedVersion: legal.version });
    const watched = await next;
    watch.abort();
    const refused = await player.submitAction({ name, action, expectedVersion: legal.version }).then(
      () => undefined,
      (err: unknown) => tabletopErrorDetails(err),
    );
    const log = await player.getGameLog({ name });
    return {
      name,
      seat,
      actedVersion: String(acted.game?.version),
      watchedVersion: watched.done === true ? "" : String(watched.value.version),
      watchedEvents: watched.done === true ? 0 : watched.value.events.length,
      refusedCode: refused?.codeName ?? "",
      refusedReason: refused?.reason ?? "",
      logVersion: String(log.entries.at(-1)?.version),
    };
  }
  throw new Error("no seat has a legal action");
}
