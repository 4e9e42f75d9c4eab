"""One command makes every client release artefact (issue 26): scripts/release_artefacts.sh writes the Python
wheel and sdist, the npm tarball and the Java jar, each holding the generated contract."""

from __future__ import annotations

import subprocess
import tarfile
import zipfile
from pathlib import Path

from tests.tools import exclusive, needs

ROOT = Path(__file__).resolve().parents[2]


def test_release_artefacts_in_one_command(tmp_path: Path) -> None:
    needs("npm", "javac", "jar", "protoc", hint="node/npm and the Java client's Debian packages (clients/java/build.sh)")
    with exclusive(ROOT), exclusive(ROOT / "clients" / "java"), exclusive(ROOT / "clients" / "typescript"):
        result = subprocess.run([str(ROOT / "scripts" / "release_artefacts.sh"), str(tmp_path)], capture_output=True,
                                text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    made = {p.name for p in tmp_path.iterdir()}
    wheel, sdist = tmp_path / "tabletop_client-0.1.0-py3-none-any.whl", tmp_path / "tabletop_client-0.1.0.tar.gz"
    tarball, jar = tmp_path / "tabletop-client-0.1.0.tgz", tmp_path / "tabletop-client-java-0.1.0.jar"
    assert made == {wheel.name, sdist.name, tarball.name, jar.name}
    assert "tabletop/v1/game_service_pb2.py" in _names(wheel)
    assert any(n.endswith("tabletop/v1/game_service_pb2.py") for n in _names(sdist))
    assert "package/dist/src/index.js" in _names(tarball)
    assert any(n.startswith("dev/tabletop/v1/") for n in _names(jar))
    assert not (ROOT / "clients" / "python" / "bdist_wheel").exists()


def _names(path: Path) -> list[str]:
    if path.suffix in (".whl", ".jar"):
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    with tarfile.open(path) as archive:
        return archive.getnames()
