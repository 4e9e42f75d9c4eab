// Plays the start of a Ticket to Ride: Europe game against a running server,
// through the package's public entry point only, as an application would.
// The server's gRPC target ("host:port") comes from TABLETOP_GRPC_TARGET;
// tests/clients/test_typescript.py starts one and sets it.

import assert from "node:assert/strict";
import { before, test } from "node:test";

import {
  asSeat,
  Code,
  createTabletopClient,
  createTabletopTransport,
  ERROR_DOMAIN,
  errorInfo,
  GameStatus,
  tabletopErrorDetails,
} from "../src/index.js";
import type { Action, CreateGameResponse, TabletopClient } from "../src/index.js";

const target = process.env["TABLETOP_GRPC_TARGET"] ?? "";
const UPPER_SNAKE = /^[A-Z][A-Z0-9_]*$/;

let spectator: TabletopClient;
let created: CreateGameResponse;
const seats: TabletopClient[] = [];

/** The error a call is expected to throw, so its details can be checked. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  assert.fail("the call succeeded but an error was expected");
}

function token(seat: number): string {
  const credential = created.credentials.find((c) => c.seat === seat);
  assert.ok(credential, `no credential for seat ${seat}`);
  return credential.playerToken;
}

before(async () => {
  assert.ok(target, "set TABLETOP_GRPC_TARGET to the host:port of a running Tabletop gRPC server");
  spectator = createTabletopClient(target, { timeoutMs: 10_000 });
  created = await spectator.createGame({
    ruleset: "ttr-europe",
    seatCount: 3,
    displayNames: ["Ada", "Brian", "Chen"],
    seed: 7n,
  });
  for (let seat = 0; seat < 3; seat++) {
    seats.push(createTabletopClient(target, { token: token(seat), timeoutMs: 10_000 }));
  }
});

test("lists rulesets, ttr-europe among them with its seat bounds", async () => {
  const { rulesets } = await spectator.listRulesets({});
  const ttr = rulesets.find((r) => r.id === "ttr-europe");
  assert.ok(ttr, `ttr-europe not offered: ${rulesets.map((r) => r.id).join(", ")}`);
  assert.ok(ttr.minSeats <= 3 && ttr.maxSeats >= 3, `seat bounds ${ttr.minSeats}-${ttr.maxSeats}`);
  assert.notEqual(ttr.rulesVersion, "");
});

test("creates a ttr-europe game with three named seats, active at once", () => {
  const game = created.game;
  assert.ok(game);
  assert.match(game.name, /^games\/.+/);
  assert.equal(game.ruleset, "ttr-europe");
  assert.equal(game.status, GameStatus.ACTIVE);
  assert.deepEqual(
    game.seats.map((s) => [s.index, s.displayName, s.occupied]),
    [
      [0, "Ada", true],
      [1, "Brian", true],
      [2, "Chen", true],
    ],
  );
  assert.deepEqual(
    created.credentials.map((c) => c.seat).sort(),
    [0, 1, 2],
  );
});

test("a seat sees its own view with its private tickets on offer", async () => {
  const name = created.game!.name;
  const response = await seats[1]!.getGame({ name });
  assert.equal(response.viewerSeat, 1);
  assert.equal(response.view?.game.case, "ttrEurope");
  const view = response.view.game.value;
  assert.equal(view.private?.seat, 1);
  assert.ok(view.private.offeredTickets.length > 0, "the initial ticket offer is empty");
  const watcher = await spectator.getGame({ name });
  assert.equal(watcher.viewerSeat, undefined);
  assert.equal(watcher.view?.game.case, "ttrEurope");
  assert.equal(watcher.view.game.value.private, undefined, "a spectator sees a private hand");
});

test("lists a seat's legal ticket choices and submits one back unchanged", async () => {
  const name = created.game!.name;
  const legal = await seats[0]!.listLegalActions({ name });
  assert.ok(legal.actions.length > 0, "seat 0 has no legal action at the start");
  for (const action of legal.actions) {
    assert.equal(action.game.case, "ttrEurope");
    assert.equal(action.game.value.kind.case, "keepTickets");
  }
  const chosen: Action = legal.actions[0]!;
  const response = await seats[0]!.submitAction({ name, action: chosen, expectedVersion: legal.version });
  assert.equal(response.game?.version, legal.version + 1n);
  assert.ok(response.events.length > 0, "an accepted action caused no event");
  assert.equal(response.view?.game.case, "ttrEurope");

  // The decision is taken: seat 0 has nothing left to decide until the others choose.
  const after = await seats[0]!.listLegalActions({ name });
  assert.equal(after.actions.length, 0);
  const again = tabletopErrorDetails(await rejection(seats[0]!.submitAction({ name, action: chosen })));
  assert.equal(again.code, Code.FailedPrecondition, again.message);
  assert.ok(["NOT_YOUR_DECISION", "NOT_YOUR_TURN"].includes(again.reason), `reason ${again.reason}`);
  assert.equal(again.domain, ERROR_DOMAIN);
});

test("a stale expected version fails with the current version in the details", async () => {
  const name = created.game!.name;
  const legal = await seats[1]!.listLegalActions({ name });
  assert.ok(legal.actions.length > 0);
  const err = await rejection(
    seats[1]!.submitAction({ name, action: legal.actions[0]!, expectedVersion: legal.version - 1n }),
  );
  const details = tabletopErrorDetails(err);
  assert.equal(details.code, Code.FailedPrecondition);
  assert.equal(details.reason, "STALE_VERSION");
  assert.equal(details.metadata["current_version"], legal.version.toString());
  assert.deepEqual(
    details.preconditionViolations.map((v) => [v.subject, v.description]),
    [["version", legal.version.toString()]],
  );
});

test("a bad token is UNAUTHENTICATED with a typed ErrorInfo", async () => {
  const name = created.game!.name;
  const forger = createTabletopClient(target, "not-a-real-token");
  const err = await rejection(forger.getGame({ name }));
  const info = errorInfo(err);
  assert.ok(info, "no google.rpc.ErrorInfo in the error details");
  assert.equal(info.$typeName, "google.rpc.ErrorInfo");
  assert.match(info.reason, UPPER_SNAKE);
  assert.equal(info.domain, ERROR_DOMAIN);
  assert.equal(tabletopErrorDetails(err).code, Code.Unauthenticated);
});

test("one shared transport acts for several seats with per-call tokens", async () => {
  const name = created.game!.name;
  const shared = createTabletopClient(target, { transport: createTabletopTransport(target) });
  const views = await Promise.all(
    [0, 1, 2].map(async (seat) => (await shared.getGame({ name }, asSeat(token(seat)))).viewerSeat),
  );
  assert.deepEqual(views, [0, 1, 2]);
});

test("watching from version 0 streams every version in order", async () => {
  const name = created.game!.name;
  const current = (await spectator.getGame({ name })).game!.version;
  const seen: bigint[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5_000);
  try {
    // timeoutMs 0: the client's default deadline is for unary calls; a watch lives until aborted.
    const options = { signal: controller.signal, timeoutMs: 0 };
    for await (const message of spectator.watchGame({ name, fromVersion: 0n }, options)) {
      seen.push(message.version);
      if (message.version >= current) {
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort(); // ends the stream now rather than when the server next looks
  }
  assert.ok(seen.length > 0, "the stream sent nothing");
  assert.equal(seen.at(-1), current);
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i]! > seen[i - 1]!, `versions out of order: ${seen.join(",")}`);
  }
});

test("joins a waiting game seat by seat and reads the log", async () => {
  const waiting = await spectator.createGame({ ruleset: "ttr-europe", seatCount: 2, displayNames: ["Ada"] });
  const name = waiting.game!.name;
  assert.equal(waiting.game!.status, GameStatus.WAITING);
  const joined = await spectator.joinGame({ name, displayName: "Brian" });
  assert.equal(joined.credential?.seat, 1);
  assert.equal(joined.game?.status, GameStatus.ACTIVE);
  const full = tabletopErrorDetails(await rejection(spectator.joinGame({ name, displayName: "Chen" })));
  assert.match(full.reason, UPPER_SNAKE);
  assert.equal(full.domain, ERROR_DOMAIN);
  const log = await createTabletopClient(target, joined.credential!.playerToken).getGameLog({ name });
  assert.equal(log.complete, false);
  assert.equal(log.seed, undefined, "the seed leaked before the end");
  assert.deepEqual(
    log.entries.map((e) => e.version),
    Array.from({ length: Number(joined.game!.version) }, (_, i) => BigInt(i + 1)),
  );
});
