"""clients/README.md says how to install the clients from the repository (they are on no registry) and
what a missing zero value means; the Java example explains ``complete`` (issue 26, diagnostics)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = (ROOT / "clients" / "README.md").read_text()


def test_the_clients_are_said_to_install_from_the_repository() -> None:
    assert "(PyPI `tabletop-client`)" not in CLIENTS and "(npm `@tabletop/client`)" not in CLIENTS
    assert "pip install ./clients/python" in CLIENTS and "npm pack" in CLIENTS


def test_zero_values_are_explained() -> None:
    assert "## Zero values in JSON" in CLIENTS and "`default`" in CLIENTS


def test_the_java_example_explains_complete() -> None:
    assert "`complete` is false while the game is still on" in (ROOT / "clients/java/README.md").read_text()
