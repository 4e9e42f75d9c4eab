"""Mutation testing of the store's Lua compare-and-set script (``service/store/cas.lua``).

mutmut mutates Python only, and the one write path of every game runs in this script, so it gets its own
small mutator: each mutant is one change a careless edit could make (a comparison flipped, an expiry
dropped, a TTL swapped, a version off by one, a write removed). Each is written into a copy of the tree
(the working tree is never touched) and the store's tests run against it on a real Redis; a mutant the
tests pass is a survivor and is printed with its change.

    .venv/bin/python scripts/mutate_lua.py            # every mutant, about two minutes
    .venv/bin/python scripts/mutate_lua.py --list     # the mutants only
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path("service/store/cas.lua")
TESTS = ["tests/service/test_idempotency.py", "tests/service/test_idempotency_fingerprint.py",
         "tests/service/test_concurrency.py", "tests/service/test_races.py",
         "tests/service/test_expiry.py", "tests/service/test_store_cas.py", "tests/service/test_e2e.py",
         "tests/service/test_determinism.py", "tests/service/test_doc_cache.py"]

# (description, text in cas.lua, replacement). Each must occur exactly once.
MUTANTS: list[tuple[str, str, str]] = [
    ("version check inverted", "if current ~= ARGV[1] then", "if current == ARGV[1] then"),
    ("version check skipped", "if current ~= ARGV[1] then", "if false then"),
    ("a missing game counts as version 1", "current = '0'", "current = '1'"),
    ("conflict reported as written", "return {0, tonumber(current),", "return {1, tonumber(current),"),
    ("stamp check skipped", "stamp ~= ARGV[9] then", "false then"),
    ("conflict answers no document", "redis.call('HGET', KEYS[1], 'doc') or ''", "''"),
    ("remembered response not looked up", "if remembered then", "if false then"),
    ("version not bumped", "local version = tonumber(current) + 1", "local version = tonumber(current)"),
    ("version bumped twice", "local version = tonumber(current) + 1", "local version = tonumber(current) + 2"),
    ("document not written", "'v', version, 'doc', ARGV[2],", "'v', version,"),
    ("version not written", "'v', version, 'doc', ARGV[2],", "'doc', ARGV[2],"),
    ("stamp not written", ", 'w', ARGV[10] or '')", ")"),
    ("log entry not appended", "redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[3])", ""),
    ("log entry under the old version", "version .. '-0'", "current .. '-1'"),
    ("game never expires", "redis.call('EXPIRE', KEYS[1], ARGV[4])", ""),
    ("log never expires", "redis.call('EXPIRE', KEYS[2], ARGV[4])", ""),
    ("game expires after the request-id ttl", "redis.call('EXPIRE', KEYS[1], ARGV[4])",
     "redis.call('EXPIRE', KEYS[1], ARGV[6])"),
    ("response not remembered", "redis.call('SET', KEYS[3], ARGV[7] .. ARGV[5], 'EX', ARGV[6])", ""),
    ("response remembered for good", "redis.call('SET', KEYS[3], ARGV[7] .. ARGV[5], 'EX', ARGV[6])",
     "redis.call('SET', KEYS[3], ARGV[7] .. ARGV[5])"),
    ("response remembered without the request's fingerprint", "ARGV[7] .. ARGV[5]", "ARGV[5]"),
    ("response kept for the game ttl", "'EX', ARGV[6]", "'EX', ARGV[4]"),
    ("empty response remembered", "if ARGV[5] ~= '' then\n  redis.call('SET'", "if true then\n  redis.call('SET'"),
    ("written reported with the old version", "return {1, version}", "return {1, version - 1}"),
]


def main() -> int:
    """Run every mutant (or list them); exit 1 when one survives."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    args = parser.parse_args()
    original = (ROOT / SCRIPT).read_text()
    for description, old, _ in MUTANTS:
        if original.count(old) != 1:
            raise SystemExit(f"mutant {description!r}: {old!r} is not in cas.lua exactly once; update MUTANTS")
    if args.list:
        for description, old, new in MUTANTS:
            print(f"{description}: {old!r} -> {new!r}")
        return 0
    survivors = []
    with tempfile.TemporaryDirectory(prefix="tabletop-lua-mutants-") as tmp:
        copy = Path(tmp) / "tree"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "mutants",
                                                                   "__pycache__", ".tabletop"))
        for description, old, new in MUTANTS:
            (copy / SCRIPT).write_text(original.replace(old, new))
            killed = _tests_fail(copy)
            print(f"{'killed  ' if killed else 'SURVIVED'} {description}", flush=True)
            if not killed:
                survivors.append(description)
    print(f"{len(MUTANTS)} mutants of {SCRIPT}: {len(MUTANTS) - len(survivors)} killed, {len(survivors)} survived")
    return 1 if survivors else 0


def _tests_fail(tree: Path) -> bool:
    env = dict(os.environ)
    env.setdefault("TABLETOP_TEST_REDIS_URL", "redis://127.0.0.1:6379")
    result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *TESTS],
                            check=False, cwd=tree, env=env, capture_output=True, timeout=600)
    return result.returncode != 0


if __name__ == "__main__":
    sys.exit(main())
