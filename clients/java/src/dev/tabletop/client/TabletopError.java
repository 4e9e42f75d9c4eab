package dev.tabletop.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.protobuf.StatusProto;
import java.util.Map;

/**
 * A refused call decoded: the gRPC code, and the stable UPPER_SNAKE reason of the server's ErrorInfo.
 *
 * <p>Why: apps branch on the reason ({@code NOT_YOUR_TURN}, {@code STALE_VERSION}), never on the
 * message, which is for people. The reason travels in the {@code grpc-status-details-bin} trailer as a
 * {@code google.rpc.Status}; a failure without one (say, the network) has an empty reason.
 */
public final class TabletopError {
  public final io.grpc.Status.Code code;
  public final String reason;
  public final String domain;
  public final Map<String, String> metadata;
  public final String message;

  private TabletopError(io.grpc.Status.Code code, String reason, String domain,
                        Map<String, String> metadata, String message) {
    this.code = code;
    this.reason = reason;
    this.domain = domain;
    this.metadata = metadata;
    this.message = message;
  }

  /** Decodes any exception a stub threw. */
  public static TabletopError of(Throwable failure) {
    io.grpc.Status status = io.grpc.Status.fromThrowable(failure);
    Status rich = StatusProto.fromThrowable(failure);
    if (rich != null) {
      for (Any detail : rich.getDetailsList()) {
        if (detail.is(ErrorInfo.class)) {
          try {
            ErrorInfo info = detail.unpack(ErrorInfo.class);
            return new TabletopError(status.getCode(), info.getReason(), info.getDomain(),
                info.getMetadataMap(), rich.getMessage());
          } catch (InvalidProtocolBufferException e) {
            break;  // a malformed detail is treated as none
          }
        }
      }
    }
    String message = status.getDescription() == null ? "" : status.getDescription();
    return new TabletopError(status.getCode(), "", "", Map.of(), message);
  }

  @Override
  public String toString() {
    return code + " " + reason + ": " + message;
  }
}
