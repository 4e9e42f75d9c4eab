"""axe-core (clients/web's devDependency) for the accessibility checks, installed when a test first needs it.

The README's test command is the whole set-up on a fresh clone: nothing runs ``npm ci`` in clients/web before it
(``.ci/run`` does, for the build check), so the first test that injects axe runs it, under the folder's lock, and
every later one finds it there. Without node/npm the test is skipped with the hint, and fails in CI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.tools import exclusive, needs, npm_ci, npm_installed

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
AXE = WEB / "node_modules" / "axe-core" / "axe.min.js"
RUN = """async () => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
  return { passed: result.passes.length, violations: result.violations.map((v) => ({ id: v.id, impact: v.impact,
    help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })) };
}"""


def axe_script() -> Path:
    """axe.min.js, after ``npm ci`` in clients/web when its node_modules is missing or older than its lock."""
    if AXE.is_file() and npm_installed(WEB):
        return AXE
    needs("node", "npm", hint="Node.js >= 20 and npm install axe-core for the accessibility checks", in_ci=True)
    with exclusive(WEB):
        npm_ci(WEB)
    assert AXE.is_file(), f"npm ci in clients/web installed no {AXE.relative_to(WEB)}"
    return AXE


def serious(page: Any) -> list[dict[str, Any]]:
    """The serious and critical WCAG 2 A/AA violations axe finds on ``page`` (the minor ones are printed)."""
    page.add_script_tag(path=str(axe_script()))
    result = page.evaluate(RUN)
    assert result["passed"] >= 10, result  # axe did check the page (a run that checked nothing proves nothing)
    print(page.url, "minor:", [(v["id"], v["impact"]) for v in result["violations"]])
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
