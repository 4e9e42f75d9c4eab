"""The contract names its code for every language, once, the same in every file.

Without these file options protoc puts all Java in one outer class of package ``tabletop.v1`` and gives
Objective-C classes bare names (``Game``, ``View``) that clash inside an app. Changing them later breaks
every client, so ``buf breaking`` guards them from the baseline on.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOS = sorted((ROOT / "protos" / "tabletop" / "v1").glob("*.proto"))
OPTION = re.compile(r'^option (\w+) = (.+);$', re.MULTILINE)
SAME_EVERYWHERE = {
    "csharp_namespace": '"Tabletop.V1"',
    "go_package": '"tabletop.dev/clients/go/tabletop/v1;tabletopv1"',
    "java_multiple_files": "true",
    "java_package": '"dev.tabletop.v1"',
    "objc_class_prefix": '"TTV1"',
    "php_namespace": r'"Tabletop\\V1"',
    "ruby_package": '"Tabletop::V1"',
    "swift_prefix": '"Tabletop_V1_"',
}


def test_every_file_sets_every_language_option_alike() -> None:
    assert {"game.proto", "game_service.proto", "player.proto"} <= {p.name for p in PROTOS}  # the glob finds them
    for proto in PROTOS:
        options = dict(OPTION.findall(proto.read_text()))
        assert {k: options.get(k) for k in SAME_EVERYWHERE} == SAME_EVERYWHERE, proto.name
        camel = "".join(part.title() for part in proto.stem.split("_"))
        assert options["java_outer_classname"] == f'"{camel}Proto"', proto.name


@pytest.mark.skipif(shutil.which("protoc") is None, reason="no protoc (Debian's protobuf-compiler) installed")
def test_java_and_objective_c_get_namespaced_names(tmp_path: Path) -> None:
    (tmp_path / "java").mkdir()
    (tmp_path / "objc").mkdir()
    subprocess.run(["protoc", "-I", "protos", "-I", "third_party/protos", f"--java_out={tmp_path / 'java'}",
                    f"--objc_out={tmp_path / 'objc'}", *[str(p.relative_to(ROOT)) for p in PROTOS]],
                   cwd=ROOT, check=True)
    java = tmp_path / "java" / "dev" / "tabletop" / "v1"
    assert (java / "Game.java").exists() and (java / "TtrEuropeView.java").exists()  # one class per message
    header = (tmp_path / "objc" / "tabletop" / "v1" / "Game.pbobjc.h").read_text()
    assert "@interface TTV1Game :" in header and "@interface Game :" not in header
