"""TLS on the gRPC port, and the TLS channel a REST facade opens to such a port.

Mobile apps reach the gRPC port across the internet, so it can terminate TLS itself (a balancer or an
ingress may terminate it instead: deploy/README.md). The certificate and key are PEM files read once at
start; a renewed certificate takes effect at the next start (the chart rolls the pods when its secret
changes). With a client CA set, every caller must present a certificate it signed (mutual TLS).

A missing or unreadable file fails the start with the setting's name: serving plaintext instead of the
TLS the operator asked for would be the silent downgrade this module exists to prevent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc

from tabletop_server.service.config import Config


def server_credentials(config: Config) -> grpc.ServerCredentials | None:
    """TLS credentials for the gRPC port, or None when no certificate is configured (plaintext)."""
    if not config.grpc_tls_cert_file:
        return None
    chain = _read(config.grpc_tls_cert_file, "TABLETOP_GRPC_TLS_CERT_FILE")
    key = _read(config.grpc_tls_key_file, "TABLETOP_GRPC_TLS_KEY_FILE")
    client_ca = (_read(config.grpc_tls_client_ca_file, "TABLETOP_GRPC_TLS_CLIENT_CA_FILE")
                 if config.grpc_tls_client_ca_file else None)
    return grpc.ssl_server_credentials([(key, chain)], root_certificates=client_ca,
                                       require_client_auth=client_ca is not None)


def facade_channel(config: Config, options: Sequence[tuple[str, Any]], aio: bool = False) -> Any:
    """The REST facade's channel to ``grpc_target``: TLS verified by ``grpc_target_tls_ca_file`` when set.

    ``grpc_target_tls_server_name`` is the name the certificate must carry when the target's host is not
    it (an in-cluster Service name in front of a certificate for the public host name). ``aio``: a
    ``grpc.aio`` channel (the event-loop routes of rest.asgi), else a blocking one (Flask's).
    """
    kind: Any = grpc.aio if aio else grpc
    if not config.grpc_target_tls_ca_file:
        return kind.insecure_channel(config.grpc_target, options=list(options))
    roots = _read(config.grpc_target_tls_ca_file, "TABLETOP_GRPC_TARGET_TLS_CA_FILE")
    extra = ([("grpc.ssl_target_name_override", config.grpc_target_tls_server_name)]
             if config.grpc_target_tls_server_name else [])
    return kind.secure_channel(config.grpc_target, grpc.ssl_channel_credentials(root_certificates=roots),
                               options=[*options, *extra])


# Helpers

def _read(path: str, setting: str) -> bytes:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise ValueError(f"{setting}={path!r} cannot be read ({exc.strerror}): refusing to serve without "
                         "the TLS it asks for") from exc
    if b"-----BEGIN " not in data:
        raise ValueError(f"{setting}={path!r} holds no PEM block (expected -----BEGIN ...)")
    return data
