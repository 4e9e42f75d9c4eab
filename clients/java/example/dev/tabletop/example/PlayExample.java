package dev.tabletop.example;

import dev.tabletop.client.TabletopClient;
import dev.tabletop.client.TabletopError;
import dev.tabletop.v1.Action;
import dev.tabletop.v1.CreateGameRequest;
import dev.tabletop.v1.CreateGameResponse;
import dev.tabletop.v1.GameServiceGrpc.GameServiceBlockingStub;
import dev.tabletop.v1.GetGameLogRequest;
import dev.tabletop.v1.GetGameLogResponse;
import dev.tabletop.v1.GetGameRequest;
import dev.tabletop.v1.JoinGameRequest;
import dev.tabletop.v1.JoinGameResponse;
import dev.tabletop.v1.ListLegalActionsRequest;
import dev.tabletop.v1.ListLegalActionsResponse;
import dev.tabletop.v1.ListRulesetsRequest;
import dev.tabletop.v1.Ruleset;
import dev.tabletop.v1.SeatCredential;
import dev.tabletop.v1.SubmitActionRequest;
import dev.tabletop.v1.SubmitActionResponse;
import dev.tabletop.v1.TtrDrawTrainCard;
import dev.tabletop.v1.TtrEuropeAction;
import dev.tabletop.v1.WatchGameRequest;
import dev.tabletop.v1.WatchGameResponse;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;
import java.util.UUID;

/**
 * Plays the opening of a Ticket to Ride: Europe game over gRPC, as an Android app would.
 *
 * <p>Usage: {@code java dev.tabletop.example.PlayExample host:port [--tls]}. Prints one {@code key=value} line per
 * step so a test can check each: create, join, legal actions, act (with a retried request id), an
 * out-of-turn move refused with its reason, watch from version 0, and the log.
 */
public final class PlayExample {
  private PlayExample() {}

  public static void main(String[] args) throws InterruptedException {
    String target = args.length > 0 ? args[0] : "localhost:50051";
    boolean tls = args.length > 1 && args[1].equals("--tls");  // verified by the JVM's trust store
    try (TabletopClient client = tls ? TabletopClient.secure(target) : TabletopClient.plaintext(target)) {
      for (Ruleset ruleset : client.spectator().listRulesets(ListRulesetsRequest.getDefaultInstance())
          .getRulesetsList()) {
        System.out.println("ruleset=" + ruleset.getId());
      }
      CreateGameResponse created = client.spectator().createGame(CreateGameRequest.newBuilder()
          .setRuleset("ttr-europe").setSeatCount(3).addDisplayNames("ann").addDisplayNames("bob")
          .setSeed(42).build());
      String name = created.getGame().getName();
      System.out.println("created=" + name + " status=" + created.getGame().getStatus());
      JoinGameResponse joined = client.spectator().joinGame(
          JoinGameRequest.newBuilder().setName(name).setDisplayName("cy").build());
      System.out.println("joined=" + joined.getCredential().getSeat() + " status=" + joined.getGame().getStatus());
      String[] tokens = new String[3];
      for (SeatCredential c : created.getCredentialsList()) {
        tokens[c.getSeat()] = c.getPlayerToken();
      }
      tokens[joined.getCredential().getSeat()] = joined.getCredential().getPlayerToken();
      long version = keepTickets(client, name, tokens);
      int current = client.spectator().getGame(GetGameRequest.newBuilder().setName(name).build())
          .getView().getTtrEurope().getCurrentSeat();
      System.out.println("current_seat=" + current);
      refuseOutOfTurn(client.seat(tokens[(current + 1) % 3]), name);
      watch(client, tokens[0], name, version);
      GetGameLogResponse log = client.seat(tokens[0]).getGameLog(
          GetGameLogRequest.newBuilder().setName(name).setPageSize(100).build());
      // complete=false: the game is still on, so this is the log so far (and the seed stays hidden);
      // it is true once the game is over, when the log is whole and GetGameLogResponse carries the seed.
      System.out.println("log_entries=" + log.getEntriesCount() + " complete=" + log.getComplete());
    }
  }

  /** Every seat sends its first legal action (keep tickets) back unchanged; one retry shows idempotency. */
  private static long keepTickets(TabletopClient client, String name, String[] tokens) {
    long version = 0;
    for (int seat = 0; seat < tokens.length; seat++) {
      GameServiceBlockingStub player = client.seat(tokens[seat]);
      ListLegalActionsResponse legal = player.listLegalActions(
          ListLegalActionsRequest.newBuilder().setName(name).build());
      System.out.println("legal=" + seat + " count=" + legal.getActionsCount());
      SubmitActionRequest request = SubmitActionRequest.newBuilder().setName(name)
          .setAction(legal.getActions(0)).setExpectedVersion(legal.getVersion())
          .setRequestId(UUID.randomUUID().toString()).build();
      SubmitActionResponse first = player.submitAction(request);
      SubmitActionResponse again = player.submitAction(request);  // a retry: answered once, applied once
      version = first.getGame().getVersion();
      System.out.println("acted=" + seat + " version=" + version + " retry_version="
          + again.getGame().getVersion());
    }
    return version;
  }

  private static void refuseOutOfTurn(GameServiceBlockingStub notTheirTurn, String name) {
    Action draw = Action.newBuilder().setTtrEurope(TtrEuropeAction.newBuilder()
        .setDrawTrainCard(TtrDrawTrainCard.getDefaultInstance())).build();
    try {
      notTheirTurn.submitAction(SubmitActionRequest.newBuilder().setName(name).setAction(draw).build());
      System.out.println("error=none");
    } catch (StatusRuntimeException e) {
      TabletopError error = TabletopError.of(e);
      System.out.println("error=" + error.code + " reason=" + error.reason + " domain=" + error.domain);
    }
  }

  /** Reads the stream from version 0 until it reaches {@code version}, then cancels it by closing. */
  private static void watch(TabletopClient client, String token, String name, long version) {
    Iterator<WatchGameResponse> stream = client.seat(token).watchGame(
        WatchGameRequest.newBuilder().setName(name).setFromVersion(0).build());
    StringBuilder seen = new StringBuilder();
    while (stream.hasNext()) {
      WatchGameResponse message = stream.next();
      seen.append(seen.length() == 0 ? "" : ",").append(message.getVersion());
      if (message.getVersion() >= version) {
        break;
      }
    }
    System.out.println("watched=" + seen);
  }
}
