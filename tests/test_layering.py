"""The architecture's layering, checked by import-linter contracts.

The pure layers (``gbmj_server.rules``, ``.game``, ``.bots``, ``.economy``) may import only
the standard library (minus clocks, sockets, threads and databases) and ``protocol``;
``protocol`` imports nothing from the rest of gbmj; the client never imports the server.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What a pure layer must never import: I/O, clocks, concurrency and every third-party
# package the project depends on.
IMPURE = [
    "trio",
    "msgpack",
    "textual",
    "asyncio",
    "socket",
    "selectors",
    "ssl",
    "sqlite3",
    "time",
    "datetime",
    "threading",
    "subprocess",
    "os",
    "io",
    "urllib",
    "http",
]


def _contracts() -> str:
    pure = [
        p
        for p in (
            "gbmj_server.rules",
            "gbmj_server.game",
            "gbmj_server.bots",
            "gbmj_server.economy",
        )
        if (ROOT / p.replace(".", "/") / "__init__.py").is_file()
    ]
    return f"""
[importlinter]
root_packages =
    protocol
    gbmj_server
    gbmj_tui
include_external_packages = True

[importlinter:contract:pure]
name = the rules and game engine are pure
type = forbidden
source_modules =
{chr(10).join("    " + p for p in pure)}
forbidden_modules =
{chr(10).join("    " + m for m in IMPURE)}

[importlinter:contract:protocol]
name = protocol imports nothing from the rest of gbmj
type = forbidden
source_modules =
    protocol
forbidden_modules =
    gbmj_server
    gbmj_tui

[importlinter:contract:client]
name = the terminal client talks to the server only through protocol
type = forbidden
source_modules =
    gbmj_tui
forbidden_modules =
    gbmj_server
"""


def _lint(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "importlinter.ini"
    config.write_text(_contracts())
    lint_imports = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(lint_imports), "--config", str(config), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_import_contracts_hold(tmp_path: Path) -> None:
    result = _lint(tmp_path)
    if result.returncode != 0:
        pytest.fail("import contracts broken:\n" + result.stdout + result.stderr)


def test_contract_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The check can fail: a rules module importing ``time`` breaks it."""
    bad = ROOT / "gbmj_server" / "rules" / "_layering_probe.py"
    bad.write_text("import time\n")
    try:
        result = _lint(tmp_path)
        assert result.returncode != 0
        assert "_layering_probe" in result.stdout
    finally:
        bad.unlink()
