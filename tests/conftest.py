"""What every test shares: the fast lane's marks, and a log left as it was found.

``uv run pytest -m "not slow"`` is the loop to run while working (1.5 minutes on two
cores); CI runs everything. A test is ``slow`` when it takes more than about a second:
it starts a real server, a client or a browser, or checks the whole tree (mypy). The
browser and SSH tests are slow as a whole: they start a front door per module."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

_SLOW_FOLDERS = ("web", "ssh")
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = item.path.relative_to(_HERE).parts[0] if item.path.is_relative_to(_HERE) else ""
        # The browser and SSH folders start a front door per module; a PostgreSQL test
        # starts a database server (the fast lane runs the same tests on SQLite).
        if folder in _SLOW_FOLDERS or item.get_closest_marker("postgres") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _server_log_removed() -> Iterator[None]:
    """A test that runs the server's or the door's command line installs the server's log
    handler on the root logger, writing to that test's captured stderr; once the capture
    is closed, every later record would print "--- Logging error ---" into whatever
    stands as stderr then (another test's output). Each test's own handler goes with it."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler.get_name() == "gbmj" and handler not in before:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
