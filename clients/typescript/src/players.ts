// A signed-in player's helpers (issue 27): every page of ListMyGames, and WatchPlayer followed
// across reconnects, resumed after the last notification received (so none is missed or repeated).

import { Code, ConnectError } from "@connectrpc/connect";
import type { CallOptions, Client } from "@connectrpc/connect";

import { GameService } from "./gen/tabletop/v1/game_service_pb.js";
import type { PlayerGame, PlayerNotification } from "./gen/tabletop/v1/player_pb.js";

type Service = Client<typeof GameService>;

/** Every game of the signed-in player (all pages), "my turn" first, then the most recently active. */
export async function listAllMyGames(
  client: Service,
  request: { filter?: string; pageSize?: number } = {},
  options: CallOptions = {},
): Promise<PlayerGame[]> {
  const games: PlayerGame[] = [];
  let pageToken = "";
  do {
    const page = await client.listMyGames({ ...request, pageToken }, options);
    games.push(...page.games);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return games;
}

/**
 * The signed-in player's notifications, for as long as the caller iterates: after `afterId`
 * (empty: from now on), reconnecting after a dropped stream (UNAVAILABLE, a replica that
 * shut down) from the last id received. Other errors end the iteration with the error.
 */
export async function* followPlayer(
  client: Service,
  afterId = "",
  options: CallOptions & { retryDelayMs?: number } = {},
): AsyncGenerator<PlayerNotification> {
  let after = afterId;
  for (;;) {
    try {
      for await (const reply of client.watchPlayer({ afterId: after }, options)) {
        if (reply.notification !== undefined) {
          after = reply.notification.id;
          yield reply.notification;
        }
      }
    } catch (err) {
      const code = err instanceof ConnectError ? err.code : undefined;
      if (code !== Code.Unavailable && code !== Code.DeadlineExceeded) {
        throw err;
      }
    }
    if (options.signal?.aborted) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 1000));
  }
}
