// The lobby: create a game of any ruleset with its options (the creator takes seat 0), and the public games
// (ListGames) to open, join or watch. A created game is public unless unticked, so others find it here;
// the join link (on the game page) works for private games too.

import type { Game, Ruleset } from "@tabletop/client/browser";
import { GameStatus } from "@tabletop/client/browser";
import { anonymous, catalog, refusal, saveCredential } from "./api.js";
import { h } from "./dom.js";
import { dealMark } from "./fairplay.js";
import { seatNames } from "./names.js";
import { t } from "./i18n/index.js";
import { allowedSeats, optionInputs } from "./options.js";
import { credentialFrom, playerClient, signedIn } from "./players.js";

/** Draw the lobby into `root`. */
export async function showLobby(root: HTMLElement): Promise<void> {
  const { rulesets } = await anonymous.listRulesets({});
  const games = h("section", { class: "games", "data-testid": "games" });
  const who = signedIn();
  const me = h("p", { class: "me" }, h("a", { href: "#/me", "data-testid": "my-games-link" },
    who === undefined ? t("players.signInForMyGames") : t("players.myGamesOf", { name: who.displayName })));
  root.replaceChildren(h("h1", {}, t("lobby.title")), me, await createForm(rulesets), games);
  await listGames(games, rulesets);
}

/** A game's status in words ("in play"). */
export function statusName(status: GameStatus): string {
  const name = GameStatus[status] ?? "UNSPECIFIED";
  return name === "WAITING" || name === "ACTIVE" || name === "FINISHED" ? t(`status.${name}`) : t("status.UNSPECIFIED");
}

/** A game id from its resource name (games/abc -> abc), as the page's links use it. */
export function gameId(name: string): string {
  return name.replace(/^games\//, "");
}

// Helpers

async function createForm(rulesets: Ruleset[]): Promise<HTMLElement> {
  const select = h("select", { name: "ruleset", "data-testid": "ruleset" },
    ...rulesets.map((r) => h("option", { value: r.id }, r.displayName)));
  // Only the seat counts the ruleset allows with the options ticked (its seat_ranges): BANG! offers 4 to 7
  // players, and 3 and 8 once Dodge City is ticked, so the form never sends a count the server refuses.
  const seats = h("select", { name: "seats", "data-testid": "seats" });
  const player = h("input", { name: "displayName", "data-testid": "display-name", placeholder: t("lobby.namePlaceholder"),
    required: true, maxlength: 64, autocomplete: "nickname", value: signedIn()?.displayName ?? "" });
  // Signed in: the game is created as the player (seat 0 bound to it), and seats can be kept for invitees.
  const invite = h("input", { name: "invite", "data-testid": "invite", size: 32, placeholder: t("players.invitePlaceholder") });
  const open = h("input", { type: "checkbox", name: "public", checked: true });
  const options = h("div");
  const message = h("div", { "data-testid": "create-error" });
  let read = (): unknown => undefined;
  let ruleset: Ruleset | undefined;
  let chosen = (): Set<string> => new Set();
  const fillSeats = (): void => {
    if (ruleset === undefined) {
      return;
    }
    const allowed = allowedSeats(ruleset, chosen());
    const previous = Number(seats.value || 0);
    const keep = allowed.includes(previous) ? previous : allowed.find((n) => n >= previous) ?? allowed.at(-1);
    seats.replaceChildren(...allowed.map((n) => h("option", { value: n, selected: n === keep }, String(n))));
  };
  const create = h("button", { type: "submit", "data-testid": "create" }, t("lobby.create"));
  // While a picked ruleset's catalog is on its way the form still holds the previous ruleset's options and seat
  // counts: nothing can be chosen or sent until they are redrawn (a quick Create sent BANG! with Ticket to Ride's
  // options, and the server refused the game).
  const selected = (): Ruleset | undefined => rulesets.find((r) => r.id === select.value) ?? rulesets[0];
  const pick = async (): Promise<void> => {
    const picked = selected();
    if (picked === undefined) {
      return;
    }
    create.disabled = seats.disabled = true;
    try {
      const inputs = optionInputs(picked, await catalog(picked.id), fillSeats);
      if (picked !== selected()) {
        return;  // picked again meanwhile: that pick draws the form
      }
      ruleset = picked;
      options.replaceChildren(inputs.element);
      read = inputs.read;
      chosen = inputs.chosen;
      seats.value = "";
      fillSeats();
      create.disabled = seats.disabled = false;
    } catch (err) {
      message.replaceChildren(refusal(err, "create-refusal"));  // Create stays off: pick the ruleset again
    }
  };
  select.addEventListener("change", () => void pick());
  await pick();
  // The form sent again as it was (a double click, a retry after a lost answer) is the same request: the server
  // answers it with the same game instead of making a second one (CreateGame's request_id).
  let sent: { body: string; requestId: string } | undefined;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (create.disabled) {
      return;  // the picked ruleset's catalog has not come yet (see pick)
    }
    message.replaceChildren();
    try {
      const invited = invite.value.split(",").map((id) => id.trim()).filter((id) => id !== "");
      const request = {
        ruleset: select.value, seatCount: Number(seats.value), displayNames: [player.value.trim()],
        options: read() as never, public: open.checked, invitedPlayerIds: invited,
      };
      const body = JSON.stringify(request, (_, value: unknown) => typeof value === "bigint" ? String(value) : value);
      if (sent?.body !== body) {
        sent = { body, requestId: crypto.randomUUID() };
      }
      const created = await (playerClient() ?? anonymous).createGame({ ...request, requestId: sent.requestId });
      const name = created.game?.name ?? "";
      const own = created.credentials[0];
      if (own !== undefined) {
        saveCredential(name, credentialFrom(name, own));
      }
      location.hash = `#/games/${gameId(name)}`;
    } catch (err) {
      message.replaceChildren(refusal(err, "create-refusal"));
    }
  };
  return h("form", { class: "create", "data-testid": "create-form", onsubmit: (e) => void submit(e) },
    h("h2", {}, t("lobby.new")),
    h("label", {}, `${t("lobby.game")} `, select), h("label", {}, `${t("lobby.seats")} `, seats),
    h("label", {}, `${t("lobby.yourName")} `, player),
    options, h("label", {}, open, ` ${t("lobby.listed")}`),
    signedIn() === undefined ? null : h("label", {}, `${t("players.invite")} `, invite),
    create, message);
}

async function listGames(section: HTMLElement, rulesets: Ruleset[]): Promise<void> {
  const names = new Map(rulesets.map((r) => [r.id, r.displayName]));
  let games: Game[] = [];
  try {
    games = (await anonymous.listGames({ pageSize: 50 })).games;
  } catch (err) {
    section.replaceChildren(refusal(err));
    return;
  }
  const rows = games.map((game) => {
    const taken = game.seats.filter((s) => s.occupied).length;
    return h("tr", { "data-game": game.name },
      h("td", {}, names.get(game.ruleset) ?? game.ruleset),
      h("td", {}, seatNames(game.seats).filter((_, i) => game.seats[i]?.occupied).join(", ")),
      h("td", {}, `${taken}/${game.seats.length}`),
      h("td", {}, statusName(game.status), ...dealMark(game)),
      h("td", {}, h("a", { href: `#/games/${gameId(game.name)}` }, t(game.status === GameStatus.WAITING ? "lobby.join" : "lobby.watch"))));
  });
  section.replaceChildren(h("h2", {}, t("lobby.open")),
    rows.length === 0 ? h("p", {}, t("lobby.none"))
      : h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, t("lobby.game")), h("th", {}, t("lobby.players")),
        h("th", {}, t("lobby.seats")), h("th", {}, t("lobby.status")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.join"))))),
      h("tbody", {}, ...rows)),
    h("button", { type: "button", onclick: () => void listGames(section, rulesets) }, t("lobby.refresh")));
}
