// Offline checks of the helpers in src/index.ts: target parsing, the bearer
// interceptor and rich-error decoding. They need no server, so a broken helper
// is reported even where the integration test cannot run.

import assert from "node:assert/strict";
import { test } from "node:test";

import { create, getOption } from "@bufbuild/protobuf";
import type { StreamRequest, UnaryRequest, UnaryResponse } from "@connectrpc/connect";

import {
  apiKeyHeader,
  asSeat,
  BadRequestSchema,
  bearerToken,
  Code,
  ConnectError,
  ErrorInfoSchema,
  FieldBehavior,
  fieldBehavior,
  GAME_HEADER,
  gameRouting,
  fieldRules,
  GameService,
  GetGameLogRequestSchema,
  JoinGameRequestSchema,
  grpcBaseUrl,
  PreconditionFailureSchema,
  RetryInfoSchema,
  tabletopErrorDetails,
  tokenHeaders,
} from "../src/index.js";

test("grpcBaseUrl turns a host:port target into an h2c URL and keeps URLs", () => {
  assert.equal(grpcBaseUrl("127.0.0.1:50051"), "http://127.0.0.1:50051");
  assert.equal(grpcBaseUrl(" https://games.example:443 "), "https://games.example:443");
  assert.throws(() => grpcBaseUrl("  "), /empty gRPC target/);
});

test("bearerToken sets the authorization header unless the call set one", async () => {
  const seen: (string | null)[] = [];
  const next = async (req: UnaryRequest): Promise<UnaryResponse> => {
    seen.push(req.header.get("authorization"));
    return {} as UnaryResponse;
  };
  const call = bearerToken("tok-1")(next as never);
  await call({ header: new Headers() } as UnaryRequest);
  await call({ header: new Headers(tokenHeaders("tok-2")) } as UnaryRequest);
  assert.deepEqual(seen, ["Bearer tok-1", "Bearer tok-2"]);
});

test("apiKeyHeader sends the operator key as x-api-key", async () => {
  let seen: string | null = null;
  const next = async (req: UnaryRequest): Promise<UnaryResponse> => {
    seen = req.header.get("x-api-key");
    return {} as UnaryResponse;
  };
  await apiKeyHeader("key-1")(next as never)({ header: new Headers() } as UnaryRequest);
  assert.equal(seen, "key-1");
});

test("gameRouting names the game of calls about one game, unary and streamed, and no other", async () => {
  const seen: (string | null)[] = [];
  const sent: unknown[] = [];
  const next = async (req: UnaryRequest | StreamRequest): Promise<UnaryResponse> => {
    seen.push(req.header.get(GAME_HEADER));
    if (req.stream) {
      for await (const message of req.message) {
        sent.push(message);
      }
    }
    return {} as UnaryResponse;
  };
  const call = gameRouting()(next as never);
  await call({ stream: false, header: new Headers(), message: { name: "games/g1" } } as never);
  await call({ stream: false, header: new Headers(), message: { name: "tickets/t1" } } as never);
  await call({ stream: false, header: new Headers(), message: { ruleset: "bang" } } as never);
  await call({ stream: false, header: new Headers({ [GAME_HEADER]: "mine" }), message: { name: "games/g1" } } as never);
  async function* watch(): AsyncGenerator<{ name: string }> {
    yield { name: "games/g2" };
  }
  await call({ stream: true, header: new Headers(), message: watch() } as never);
  assert.deepEqual(seen, ["g1", null, null, "mine", "g2"]);
  assert.deepEqual(sent, [{ name: "games/g2" }]);
});

test("asSeat merges the seat's token into existing call headers", () => {
  const options = asSeat("tok", { headers: [["x-request-id", "r1"]], timeoutMs: 50 });
  assert.deepEqual(options.headers, { "x-request-id": "r1", authorization: "Bearer tok" });
  assert.equal(options.timeoutMs, 50);
});

test("tabletopErrorDetails picks ErrorInfo, PreconditionFailure and BadRequest", () => {
  const err = new ConnectError("Game moved on; reload and retry", Code.Aborted, undefined, [
    {
      desc: ErrorInfoSchema,
      value: { reason: "STALE_VERSION", domain: "tabletop.dev", metadata: { current_version: "5" } },
    },
    {
      desc: PreconditionFailureSchema,
      value: { violations: [{ type: "STALE", subject: "version", description: "5" }] },
    },
    { desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: [{ field: "action" }] }) },
  ]);
  const details = tabletopErrorDetails(err);
  assert.equal(details.code, Code.Aborted);
  assert.equal(details.codeName, "Aborted");
  assert.equal(details.reason, "STALE_VERSION");
  assert.equal(details.domain, "tabletop.dev");
  assert.deepEqual(details.metadata, { current_version: "5" });
  assert.equal(details.message, "Game moved on; reload and retry");
  assert.deepEqual(
    details.preconditionViolations.map((v) => [v.subject, v.description]),
    [["version", "5"]],
  );
  assert.deepEqual(details.fieldViolations.map((v) => v.field), ["action"]);
  assert.equal(details.retryDelayMs, undefined);
});

test("tabletopErrorDetails turns RetryInfo into milliseconds", () => {
  const err = new ConnectError("Slow down", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: { reason: "RATE_LIMITED", domain: "tabletop.dev" } },
    { desc: RetryInfoSchema, value: { retryDelay: { seconds: 1n, nanos: 250_000_000 } } },
  ]);
  const details = tabletopErrorDetails(err);
  assert.equal(details.reason, "RATE_LIMITED");
  assert.equal(details.retryDelayMs, 1250);
});

test("tabletopErrorDetails of a non-server error has no reason", () => {
  const details = tabletopErrorDetails(new Error("socket hang up"));
  assert.equal(details.code, Code.Unknown);
  assert.equal(details.reason, "");
});

test("the generated service names every RPC of the contract", () => {
  assert.equal(GameService.typeName, "tabletop.v1.GameService");
  assert.deepEqual(
    GameService.methods.map((m) => m.name),
    [
      "ListRulesets",
      "GetRuleset",
      "ListGames",
      "CreateGame",
      "JoinGame",
      "LeaveGame",
      "ConcedeGame",
      "RematchGame",
      "GetGame",
      "ListLegalActions",
      "SubmitAction",
      "WatchGame",
      "SetSeatBot",
      "GetGameLog",
      "CreatePlayerSession",
      "RefreshPlayerSession",
      "CreateGuestSession",
      "ListMyGames",
      "WatchPlayer",
      "ListNotifications",
      "MarkNotificationsRead",
      "ListLeaderboard",
      "GetPlayerProfile",
      "FindGame",
      "GetTicket",
      "CancelTicket",
    ],
  );
});

test("the generated messages carry the contract's limits and field behaviours", () => {
  const displayName = JoinGameRequestSchema.field.displayName;
  assert.ok(displayName);
  const limits = getOption(displayName, fieldRules);
  assert.equal(limits.reason, "INVALID_DISPLAY_NAME");
  assert.equal(limits.maxLength, 64);
  assert.ok(new RegExp(limits.pattern).test("ann") && !new RegExp(limits.pattern).test("a\u200bb"));
  assert.deepEqual(getOption(displayName, fieldBehavior), [FieldBehavior.REQUIRED]);
  const pageSize = GetGameLogRequestSchema.field.pageSize;
  assert.ok(pageSize);
  assert.equal(getOption(pageSize, fieldRules).minimum, 0n);
});
