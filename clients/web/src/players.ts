// Signed-in players (issue 27): a guest session from the server (CreateGuestSession, when the deployment
// turns TABLETOP_GUEST_SESSIONS on), kept in localStorage so every tab of this browser is the same player
// until it signs out; its access token is sent as `authorization: Bearer` by the player's client and
// refreshed shortly before it expires. The refresh token rotates and a reused one revokes the sign-in, so
// refreshes are serialised across tabs (Web Locks) and re-read the stored session before trading it.
// A seat bound to the player (created, joined or invited while signed in) has no seat token: the page
// acts in it with the player's client, and remembers which seat is the player's in which game.

import { createBrowserClient } from "@tabletop/client/browser";
import type { BrowserClientOptions, PlayerSession, SeatCredential, TabletopClient } from "@tabletop/client/browser";
import { anonymous } from "./api.js";
import type { Credential } from "./api.js";

/** The signed-in player as this browser keeps it. */
export interface SignedIn {
  playerId: string;
  displayName: string;
  accessToken: string;
  /** When the access token expires (ms since the epoch). */
  expireMs: number;
  refreshToken: string;
}

/** The signed-in player, if any. */
export function signedIn(): SignedIn | undefined {
  const raw = localStorage.getItem(SESSION);
  return raw === null ? undefined : (JSON.parse(raw) as SignedIn);
}

/** Sign in as a new guest player named `displayName` (refused when the server has guest sessions off). */
export async function signInAsGuest(displayName: string): Promise<SignedIn> {
  const reply = await anonymous.createGuestSession({ displayName });
  return keep(reply.session);
}

/** Forget the session (the server keeps the player's games: signing in again as a guest is a new player). */
export function signOut(): void {
  const who = signedIn();
  localStorage.removeItem(SESSION);
  if (who !== undefined) {
    localStorage.removeItem(SEATS + who.playerId);
  }
  client = undefined;
}

/** The signed-in player's client (undefined when signed out): every call carries a fresh access token. */
export function playerClient(): TabletopClient | undefined {
  if (signedIn() === undefined) {
    return undefined;
  }
  client ??= createBrowserClient(location.origin, { interceptors: [bearer] });
  return client;
}

/** The player's seat in `game`, as a page credential, when this browser knows it. */
export function playerCredential(game: string): Credential | undefined {
  const seat = seats()[game];
  return seat === undefined || signedIn() === undefined ? undefined : { seat, token: "", player: true };
}

/** Remember that the player holds `seat` in `game` (My games lists it too, on any device). */
export function rememberSeat(game: string, seat: number): void {
  const who = signedIn();
  if (who !== undefined) {
    localStorage.setItem(SEATS + who.playerId, JSON.stringify({ ...seats(), [game]: seat }));
  }
}

/** A credential from CreateGame or JoinGame: a seat token, or (no token) a seat bound to the player. */
export function credentialFrom(game: string, own: SeatCredential): Credential {
  if (own.playerId !== "") {
    rememberSeat(game, own.seat);
    return { seat: own.seat, token: "", player: true };
  }
  return { seat: own.seat, token: own.playerToken };
}

// Helpers

const SESSION = "tabletop:player";
const SEATS = "tabletop:player-seats:";
/** Refresh this long before the access token expires (clock skew, a slow call). */
const REFRESH_MARGIN_MS = 60_000;
let client: TabletopClient | undefined;
let refreshing: Promise<SignedIn> | undefined;

type Interceptor = NonNullable<BrowserClientOptions["interceptors"]>[number];

const bearer: Interceptor = (next) => async (req) => {
  req.header.set("authorization", `Bearer ${await accessToken()}`);
  return next(req);
};

function keep(session: PlayerSession | undefined): SignedIn {
  if (session === undefined) {
    throw new Error("The server answered without a session.");
  }
  const kept: SignedIn = {
    playerId: session.playerId, displayName: session.displayName, accessToken: session.accessToken,
    expireMs: Number(session.expireTime?.seconds ?? 0n) * 1000, refreshToken: session.refreshToken,
  };
  localStorage.setItem(SESSION, JSON.stringify(kept));
  return kept;
}

async function accessToken(): Promise<string> {
  const now = signedIn();
  if (now === undefined) {
    throw new Error("Signed out: sign in again on My games.");
  }
  if (now.expireMs - Date.now() > REFRESH_MARGIN_MS) {
    return now.accessToken;
  }
  refreshing ??= withLock(refresh).finally(() => { refreshing = undefined; });
  return (await refreshing).accessToken;
}

/** Trade the refresh token, unless another tab did it meanwhile; a refused refresh signs out. */
async function refresh(): Promise<SignedIn> {
  const now = signedIn();
  if (now === undefined) {
    throw new Error("Signed out: sign in again on My games.");
  }
  if (now.expireMs - Date.now() > REFRESH_MARGIN_MS) {
    return now;
  }
  try {
    return keep((await anonymous.refreshPlayerSession({ refreshToken: now.refreshToken })).session);
  } catch (err) {
    signOut();
    throw err;
  }
}

function withLock<T>(work: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks === undefined ? work() : (locks.request("tabletop:player-refresh", work) as Promise<T>);
}

function seats(): Record<string, number> {
  const who = signedIn();
  const raw = who === undefined ? null : localStorage.getItem(SEATS + who.playerId);
  return raw === null ? {} : (JSON.parse(raw) as Record<string, number>);
}
