"""A throwaway PKI for TLS tests, made with the openssl command line (no Python crypto dependency).

``make_pki(d)`` writes into ``d``: ``ca.pem`` (a CA) and ``stranger.pem`` (another CA), and, each signed by
``ca.pem`` with its key beside it (``<name>-key.pem``): ``server.pem`` (localhost, 127.0.0.1),
``other.pem`` (tabletop.example only) and ``client.pem`` (a client certificate).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

EC = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")


def make_pki(d: Path) -> Path:
    """The files above in ``d``; returns ``d``."""
    for name, subject in (("ca", "/CN=Tabletop test CA"), ("stranger", "/CN=Another CA")):
        _openssl(d, "req", "-x509", *EC, "-keyout", f"{name}-key.pem", "-out", f"{name}.pem", "-days", "2",
                 "-subj", subject)
    for name, san in (("server", "DNS:localhost,IP:127.0.0.1"), ("other", "DNS:tabletop.example"),
                      ("client", "DNS:client")):
        _openssl(d, "req", *EC, "-keyout", f"{name}-key.pem", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        _openssl(d, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return d


# Helpers

def _openssl(cwd: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)
