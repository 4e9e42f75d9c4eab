package dev.tabletop.client;

import dev.tabletop.v1.GameServiceGrpc;
import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A channel to the Tabletop game service and stubs that carry a seat's token.
 *
 * <p>Why a wrapper at all: the contract puts the caller's seat in {@code authorization: Bearer <token>}
 * metadata, and every mobile app would otherwise write the same {@link CallCredentials}. The stubs
 * themselves are the generated {@code dev.tabletop.v1.GameServiceGrpc} ones, unchanged.
 *
 * <p>The channel comes from {@link ManagedChannelBuilder#forTarget}, which takes whichever transport is
 * on the classpath: grpc-netty on a server or desktop (Debian's libgrpc-java), grpc-okhttp or
 * grpc-cronet on Android. {@code plaintext} is for local servers only; production uses TLS.
 *
 * <p>Every stub's calls that name a game carry {@code x-tabletop-game} ({@link GameRouting}), so an ingress
 * can keep each game on one server replica.
 */
public final class TabletopClient implements AutoCloseable {
  private final ManagedChannel channel;
  private final Channel routed;

  private TabletopClient(ManagedChannel channel) {
    this.channel = channel;
    this.routed = ClientInterceptors.intercept(channel, new GameRouting());
  }

  /** A client over TLS (the system's trust store) to {@code host:port}. */
  public static TabletopClient secure(String target) {
    return new TabletopClient(ManagedChannelBuilder.forTarget(target).useTransportSecurity().build());
  }

  /** A client without TLS, for a server on this machine or a trusted network. */
  public static TabletopClient plaintext(String target) {
    return new TabletopClient(ManagedChannelBuilder.forTarget(target).usePlaintext().build());
  }

  /** The spectator's blocking stub (no token): public views only. */
  public GameServiceGrpc.GameServiceBlockingStub spectator() {
    return GameServiceGrpc.newBlockingStub(routed).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** A blocking stub that acts as the seat holding {@code playerToken}. */
  public GameServiceGrpc.GameServiceBlockingStub seat(String playerToken) {
    return GameServiceGrpc.newBlockingStub(routed).withCallCredentials(bearer(playerToken))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** An asynchronous stub for the seat, for WatchGame on a UI thread's observer. */
  public GameServiceGrpc.GameServiceStub seatAsync(String playerToken) {
    return GameServiceGrpc.newStub(routed).withCallCredentials(bearer(playerToken));
  }

  /** {@code authorization: Bearer <token>} on every call of a stub. */
  public static CallCredentials bearer(String token) {
    Metadata.Key<String> key = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    return new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        Metadata headers = new Metadata();
        headers.put(key, "Bearer " + token);
        applier.apply(headers);
      }

      @Override
      public void thisUsesUnstableApi() {}
    };
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdown().awaitTermination(5, TimeUnit.SECONDS);
  }
}
