"""Every package (the protocol, the pure game, the server and the client) passes mypy in
strict mode, as configured in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.schema import Int, Optional, field

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "gbmj", "gbmj_server", "gbmj_tui")


def _mypy(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    mypy = Path(sys.executable).parent / "mypy"
    return subprocess.run(
        [str(mypy), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_every_package_is_strictly_typed(tmp_path: Path) -> None:
    result = _mypy(ROOT, tmp_path / "cache")
    if result.returncode != 0:
        pytest.fail("mypy --strict fails:\n" + result.stdout + result.stderr)


@pytest.mark.slow
def test_the_check_can_fail(tmp_path: Path) -> None:
    """In a copy of the tree, an untyped function in the server breaks it."""
    copy = tmp_path / "tree"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("*.pyc"))
    (copy / "gbmj_server" / "_typing_probe.py").write_text("def f(x):\n    return x\n")
    result = _mypy(copy, tmp_path / "cache")
    assert result.returncode != 0
    assert "_typing_probe.py" in result.stdout


def test_an_optional_field_must_say_its_default() -> None:
    """The type checker learns which record fields may be left out from ``default=None``;
    the schema refuses a field whose default and spec disagree, so it cannot lie."""
    with pytest.raises(TypeError, match="default=None"):
        field(Optional(Int(0, 3)))
    with pytest.raises(TypeError, match="default=None"):
        field(Int(0, 3), default=None)
