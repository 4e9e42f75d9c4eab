package dev.tabletop.client;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/**
 * Sends {@code x-tabletop-game: <id>} on every call whose request names a game ({@code name} is
 * {@code games/<id>}), so that an ingress can keep each game on one server replica, whose copy of the game
 * is then current (deploy/README.md, "Game-affinity routing"). Calls that name no game carry no header and
 * are spread. The server never reads it: it acts on the request's {@code name}.
 *
 * <p>Headers go out when a call starts, before its message, so a call that sends one message (unary and
 * server-streaming: every call of the contract) starts when its message is sent and not before.
 */
public final class GameRouting implements ClientInterceptor {
  /** The header's name. */
  public static final Metadata.Key<String> GAME_HEADER =
      Metadata.Key.of("x-tabletop-game", Metadata.ASCII_STRING_MARSHALLER);

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    ClientCall<Q, R> call = next.newCall(method, options);
    return method.getType().clientSendsOneMessage() ? new StartsWithItsMessage<>(call) : call;
  }

  /** The game id a request names, or null when it names none. */
  public static String gameOf(Object request) {
    if (!(request instanceof Message)) {
      return null;
    }
    Message message = (Message) request;
    FieldDescriptor name = message.getDescriptorForType().findFieldByName("name");
    if (name == null || name.getJavaType() != FieldDescriptor.JavaType.STRING || name.isRepeated()) {
      return null;
    }
    String value = (String) message.getField(name);
    return value.startsWith("games/") && value.length() > "games/".length()
        ? value.substring("games/".length()) : null;
  }

  // Helpers

  /** A call whose start waits for its one message, which then names the game in the headers. */
  private static final class StartsWithItsMessage<Q, R> extends ClientCall<Q, R> {
    private final ClientCall<Q, R> delegate;
    private Listener<R> listener;
    private Metadata headers;
    private int requested;
    private boolean started;

    StartsWithItsMessage(ClientCall<Q, R> delegate) {
      this.delegate = delegate;
    }

    @Override
    public void start(Listener<R> responseListener, Metadata requestHeaders) {
      listener = responseListener;
      headers = requestHeaders;
    }

    @Override
    public void request(int count) {
      if (started) {
        delegate.request(count);
      } else {
        requested += count;
      }
    }

    @Override
    public void sendMessage(Q message) {
      String game = gameOf(message);
      if (game != null && !headers.containsKey(GAME_HEADER)) {
        headers.put(GAME_HEADER, game);
      }
      startNow();
      delegate.sendMessage(message);
    }

    @Override
    public void halfClose() {
      startNow();
      delegate.halfClose();
    }

    @Override
    public void cancel(String message, Throwable cause) {
      if (listener != null) {
        startNow();
      }
      delegate.cancel(message, cause);
    }

    @Override
    public boolean isReady() {
      return started && delegate.isReady();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      delegate.setMessageCompression(enabled);
    }

    @Override
    public Attributes getAttributes() {
      return delegate.getAttributes();
    }

    private void startNow() {
      if (started) {
        return;
      }
      started = true;
      delegate.start(listener, headers);
      if (requested > 0) {
        delegate.request(requested);
      }
    }
  }
}
