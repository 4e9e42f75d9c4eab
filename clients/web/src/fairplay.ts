// Fair play (issue 33, docs/fair-play.md): the mark of a game whose deal the creator chose, and
// "Verify this deal" on a finished game. The browser checks the commitment (SHA-256 of the scheme line,
// ruleset, rules version, game name, seed and salt, exactly as service/engine/commitment.py) against the
// seed and salt the finished game's log reveals; replaying every draw takes the rules, so the page points
// to `tabletop verify`, which does the whole check.

import type { Game } from "@tabletop/client/browser";
import { GameStatus, SeedSource } from "@tabletop/client/browser";
import { anonymous, refusalText } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n/index.js";

const SCHEME = "tabletop/deal-commitment/1";
const verdicts = new Map<string, HTMLElement>();

/** "deal chosen by the creator" for a game whose seed the server did not draw; nothing otherwise. */
export function dealMark(game: Game): HTMLElement[] {
  if (game.seedSource === SeedSource.SERVER || game.seedSource === SeedSource.UNSPECIFIED) {
    return [];
  }
  const why = t(game.seedSource === SeedSource.OPERATOR_SCOPE ? "fair.chosenOperator" : "fair.chosenCreator");
  return [h("span", { class: "deal-chosen", "data-testid": "deal-chosen", title: why }, t("fair.chosen"))];
}

/** The "Verify this deal" button of a finished game with a commitment, and where its verdict shows. */
export function verifyDeal(game: Game): HTMLElement[] {
  if (game.status !== GameStatus.FINISHED || game.seedCommitment === "") {
    return [];
  }
  // The verdict outlives the page's redraws (the header is drawn afresh at every load).
  const verdict = verdicts.get(game.name) ?? h("span", { class: "verify-result", "data-testid": "verify-result" });
  verdicts.set(game.name, verdict);
  const button = h("button", { type: "button", "data-testid": "verify-deal", onclick: () => void check(game, verdict) },
    t("fair.verify"));
  return [button, verdict];
}

/** The commitment of these values, as 64 hex digits. */
export async function commitment(ruleset: string, rulesVersion: string, game: string, seedHex: string,
  saltHex: string): Promise<string> {
  const text = [SCHEME, ruleset, rulesVersion, game, seedHex, saltHex].map((line) => `${line}\n`).join("");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function check(game: Game, verdict: HTMLElement): Promise<void> {
  verdict.textContent = t("fair.checking");
  try {
    const log = await anonymous.getGameLog({ name: game.name, pageSize: 1 });
    const opened = await commitment(game.ruleset, game.rulesVersion, game.name, log.seedHex, log.seedSalt);
    const ok = log.seedHex !== "" && opened === game.seedCommitment;
    verdict.dataset["verified"] = String(ok);
    verdict.textContent = ok
      ? t("fair.ok", { seed: log.seedHex.slice(0, 12), game: game.name })
      : t("fair.bad");
  } catch (err) {
    verdict.textContent = refusalText(err);
  }
}
