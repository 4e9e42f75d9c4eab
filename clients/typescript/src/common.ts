// What the Node and the browser entries share: the generated tabletop.v1 messages
// and service, the bearer-token and API-key interceptors, and the decoder of the
// server's rich errors. Nothing here imports a Node module, so a browser bundle can
// include it (src/browser.ts); the transports live in the entries.

import { Code, ConnectError } from "@connectrpc/connect";
import type { CallOptions, Client, Interceptor, Transport } from "@connectrpc/connect";

import { GameService } from "./gen/tabletop/v1/game_service_pb.js";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
import type {
  BadRequest_FieldViolation,
  ErrorInfo,
  PreconditionFailure_Violation,
} from "./gen/google/rpc/error_details_pb.js";

export * from "./gen/tabletop/v1/game_service_pb.js";
export * from "./gen/tabletop/v1/game_pb.js";
export * from "./gen/tabletop/v1/ttr_europe_pb.js";
export * from "./gen/tabletop/v1/bang_pb.js";
export * from "./gen/tabletop/v1/player_pb.js";
export * from "./gen/tabletop/v1/rating_pb.js";
export * from "./gen/tabletop/v1/matchmaking_pb.js";
export { followPlayer, listAllMyGames } from "./players.js";
// The limits of request fields, as the contract annotates them (the server enforces exactly these):
// getOption(JoinGameRequestSchema.field.displayName, fieldRules).maxLength is 64.
export { FieldRulesSchema, rules as fieldRules } from "./gen/tabletop/v1/field_rules_pb.js";
export type { FieldRules } from "./gen/tabletop/v1/field_rules_pb.js";
export { FieldBehavior, field_behavior as fieldBehavior } from "./gen/google/api/field_behavior_pb.js";
export {
  BadRequestSchema,
  BadRequest_FieldViolationSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  PreconditionFailure_ViolationSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
export type {
  BadRequest,
  BadRequest_FieldViolation,
  ErrorInfo,
  PreconditionFailure,
  PreconditionFailure_Violation,
  RetryInfo,
} from "./gen/google/rpc/error_details_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";

/** The ErrorInfo domain of every error the Tabletop server raises. */
export const ERROR_DOMAIN = "tabletop.dev";

/** A typed client of tabletop.v1.GameService. */
export type TabletopClient = Client<typeof GameService>;

/** How to reach the server and as whom. */
export interface TabletopClientOptions {
  /** A seat's player token; omitted means the caller is a spectator. */
  token?: string;
  /** The operator-issued key some deployments require for CreateGame (sent as `x-api-key`). */
  apiKey?: string;
  /** More interceptors, run after the bearer-token one. */
  interceptors?: Interceptor[];
  /**
   * Default deadline of every call, in milliseconds. It applies to watchGame too:
   * pass `{ timeoutMs: 0 }` there, or the stream is cut after this long (and, with
   * Connect 2.1, a stream left early still holds its deadline timer until it fires).
   */
  timeoutMs?: number;
  /** A transport to share (one HTTP/2 connection for many seats); `token` is then ignored. */
  transport?: Transport;
}

/**
 * Turns a gRPC target into the base URL Connect wants.
 *
 * Servers and the Python client speak of targets as "host:port" (the form
 * grpc uses); Connect needs a URL. A bare target means plaintext HTTP/2
 * (h2c), which is how the server listens unless TLS is put in front of it.
 */
export function grpcBaseUrl(target: string): string {
  const trimmed = target.trim();
  if (trimmed === "") {
    throw new Error("empty gRPC target: expected host:port or an http(s):// URL");
  }
  return trimmed.includes("://") ? trimmed : `http://${trimmed}`;
}

/**
 * The `authorization` header value the server reads the caller's seat from.
 *
 * Use it per call (`{ headers: tokenHeaders(token) }`) to act for several seats
 * over one shared transport.
 */
export function tokenHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * An interceptor that sends `authorization: Bearer <token>` on every call.
 *
 * A header set by the call itself wins, so one client can still act for
 * another seat in a single call.
 */
export function bearerToken(token: string): Interceptor {
  return (next) => async (req) => {
    if (!req.header.has("authorization")) {
      req.header.set("authorization", `Bearer ${token}`);
    }
    return await next(req);
  };
}

/** An interceptor that sends the operator's `x-api-key` on every call. */
export function apiKeyHeader(apiKey: string): Interceptor {
  return (next) => async (req) => {
    req.header.set("x-api-key", apiKey);
    return await next(req);
  };
}

/**
 * The header naming the game a call is about, so that an ingress can send every call of one game to the
 * same server replica, whose copy of the game is then current (deploy/README.md, "Game-affinity routing").
 * Its value is the game's id: the part of the request's `name` after "games/". Only routing reads it.
 */
export const GAME_HEADER = "x-tabletop-game";

/** The game id a request names (its `name` is "games/<id>"), or undefined when it names no game. */
export function gameOf(message: unknown): string | undefined {
  const name = (message as { name?: unknown } | null | undefined)?.name;
  return typeof name === "string" && name.startsWith("games/") && name.length > "games/".length
    ? name.slice("games/".length)
    : undefined;
}

/**
 * An interceptor that sends `x-tabletop-game: <id>` on every call whose request names a game (GetGame,
 * SubmitAction, WatchGame, ...); calls that name none (CreateGame, ListGames, tickets) carry no header, so
 * the ingress spreads them. A header set by the call itself wins.
 */
export function gameRouting(): Interceptor {
  return (next) => async (req) => {
    if (req.header.has(GAME_HEADER)) {
      return await next(req);
    }
    if (!req.stream) {
      setGame(req.header, gameOf(req.message));
      return await next(req);
    }
    // A server stream (WatchGame) sends its one request message as an iterable: read it, then send it on.
    const [first, message] = await peek(req.message);
    setGame(req.header, gameOf(first));
    return await next({ ...req, message });
  };
}

/** The interceptors a transport gets from the options: game routing, token, API key, then the caller's own. */
export function optionInterceptors(options: Omit<TabletopClientOptions, "transport">): Interceptor[] {
  const interceptors: Interceptor[] = [gameRouting()];
  if (options.token !== undefined) {
    interceptors.push(bearerToken(options.token));
  }
  if (options.apiKey !== undefined) {
    interceptors.push(apiKeyHeader(options.apiKey));
  }
  interceptors.push(...(options.interceptors ?? []));
  return interceptors;
}

/** What a caller needs from a failed call, decoded from the rich gRPC status. */
export interface TabletopErrorDetails {
  /** The gRPC status code. */
  code: Code;
  /** The code's name, for example "FailedPrecondition". */
  codeName: string;
  /** The server's message, which says what to do. */
  message: string;
  /** The UPPER_SNAKE reason; empty when the error did not come from the server (network, deadline). */
  reason: string;
  /** The ErrorInfo domain ("tabletop.dev" for server errors). */
  domain: string;
  /** Short facts about the error, for example `current_version`. */
  metadata: Record<string, string>;
  /** PreconditionFailure violations (a stale version: subject "version"). */
  preconditionViolations: PreconditionFailure_Violation[];
  /** BadRequest field violations (a malformed request). */
  fieldViolations: BadRequest_FieldViolation[];
  /** How long to wait before retrying (RetryInfo, sent with RATE_LIMITED), when the server said. */
  retryDelayMs: number | undefined;
}

/** The ErrorInfo of a failed call, or undefined when it carries none. */
export function errorInfo(err: unknown): ErrorInfo | undefined {
  return ConnectError.from(err).findDetails(ErrorInfoSchema)[0];
}

/**
 * Decodes any error thrown by a client call.
 *
 * Connect parses `grpc-status-details-bin` into details; this picks out the
 * three kinds the server sends, so callers never touch google.protobuf.Any.
 */
export function tabletopErrorDetails(err: unknown): TabletopErrorDetails {
  const error = ConnectError.from(err);
  const info = error.findDetails(ErrorInfoSchema)[0];
  return {
    code: error.code,
    codeName: Code[error.code],
    message: error.rawMessage,
    reason: info?.reason ?? "",
    domain: info?.domain ?? "",
    metadata: { ...(info?.metadata ?? {}) },
    preconditionViolations: error.findDetails(PreconditionFailureSchema).flatMap((d) => d.violations),
    fieldViolations: error.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations),
    retryDelayMs: retryDelayMs(error),
  };
}

/** Call options carrying a seat's token, for one call over a shared transport. */
export function asSeat(token: string, options: CallOptions = {}): CallOptions {
  return { ...options, headers: { ...headerRecord(options.headers), ...tokenHeaders(token) } };
}

// Helpers

function setGame(header: Headers, game: string | undefined): void {
  if (game !== undefined) {
    header.set(GAME_HEADER, game);
  }
}

async function peek<T>(messages: AsyncIterable<T>): Promise<[T | undefined, AsyncIterable<T>]> {
  const iterator = messages[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* replay(): AsyncGenerator<T> {
    if (first.done === true) {
      return;
    }
    yield first.value;
    for (let item = await iterator.next(); item.done !== true; item = await iterator.next()) {
      yield item.value;
    }
  }
  return [first.done === true ? undefined : first.value, replay()];
}

function retryDelayMs(error: ConnectError): number | undefined {
  const delay = error.findDetails(RetryInfoSchema)[0]?.retryDelay;
  return delay === undefined ? undefined : Number(delay.seconds) * 1000 + delay.nanos / 1e6;
}

function headerRecord(headers: CallOptions["headers"]): Record<string, string> {
  if (headers === undefined) {
    return {};
  }
  if (Array.isArray(headers)) {
    return Object.fromEntries(headers);
  }
  if (headers instanceof Headers) {
    return Object.fromEntries(headers.entries());
  }
  return { ...headers };
}
