"""What every test shares: the fast lane's marks.

``uv run pytest -m "not slow"`` is the loop to run while working (1.5 minutes on two
cores); CI runs everything. A test is ``slow`` when it takes more than about a second:
it starts a real server, a client or a browser, or checks the whole tree (mypy). The
browser and SSH tests are slow as a whole: they start a front door per module."""

from __future__ import annotations

from pathlib import Path

import pytest

_SLOW_FOLDERS = ("web", "ssh")
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = item.path.relative_to(_HERE).parts[0] if item.path.is_relative_to(_HERE) else ""
        if folder in _SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
