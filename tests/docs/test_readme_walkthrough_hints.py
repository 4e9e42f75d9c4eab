"""The README's walkthrough says what a newcomer trips over (issue 26): the watch never returns by itself,
every reply printed in a loop ends its line, and idempotency keys are per seat."""

from __future__ import annotations

import re
from pathlib import Path

WALKTHROUGH = (Path(__file__).resolve().parents[2] / "README.md").read_text().split("## Five-minute walkthrough")[1]
WALKTHROUGH = WALKTHROUGH.split("\n## ")[0]


def test_the_watch_says_it_does_not_return() -> None:
    before_watch = WALKTHROUGH.split('curl -sN "localhost:8080/v1/$GAME:watch"')[0].rsplit("```sh", 1)[0]
    assert "Ctrl-C" in before_watch and "second terminal" in before_watch
    watch_block = re.search(r"```sh\n([^`]*:watch[^`]*)```", WALKTHROUGH)
    assert watch_block is not None and watch_block.group(1).strip().count("\n") == 0  # alone in its block


def test_replies_printed_in_a_loop_end_their_line() -> None:
    loops = re.findall(r"for [^\n]*; do\n(.*?)\ndone", WALKTHROUGH, re.DOTALL)
    posts = [line for loop in loops for line in loop.splitlines() if "curl" in line and "-X POST" in line]
    assert posts and all("-w '\\n'" in line for line in posts)


def test_idempotency_keys_are_said_to_be_per_seat() -> None:
    assert "Keys are remembered per seat" in WALKTHROUGH
