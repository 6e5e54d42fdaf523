"""The architecture's layering, checked by import-linter contracts.

The pure layers (``gbmj.rules``, ``.game``, ``.bots``, ``.economy``) may import only
the standard library (minus clocks, sockets, threads and databases) and ``protocol``;
``protocol`` imports nothing from the rest of gbmj; the client never imports the server;
only the tables' own modules touch a table's state (the rest of the server sends a table
commands and reads the registry's indexes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "gbmj", "gbmj_server", "gbmj_tui")

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

# The server's code that runs outside the tables' tasks (requests, the host's moderation,
# connections, the nodes), and the modules that hold a table's state: the first reach a
# table only through ``gbmj_server.tables.commands`` and the registry
# (``gbmj_server.tables.registry``), never by importing the second.
OUTSIDE_TABLES = [
    "gbmj_server.handlers",
    "gbmj_server.moderation",
    "gbmj_server.services",
    "gbmj_server.server",
    "gbmj_server.net",
    "gbmj_server.nodes",
    "gbmj_server.tournaments",
]
TABLE_STATE = [
    "gbmj_server.tables.table",
    "gbmj_server.tables.play",
    "gbmj_server.tables.state",
    "gbmj_server.tables.seat",
]


def _contracts() -> str:
    return f"""
[importlinter]
root_packages =
    protocol
    gbmj
    gbmj_server
    gbmj_tui
include_external_packages = True
exclude_type_checking_imports = False

[importlinter:contract:pure]
name = the rules and game engine are pure
type = forbidden
source_modules =
    gbmj
forbidden_modules =
{chr(10).join("    " + m for m in IMPURE)}
    gbmj_server
    gbmj_tui

[importlinter:contract:protocol]
name = protocol imports nothing from the rest of gbmj
type = forbidden
source_modules =
    protocol
forbidden_modules =
    gbmj
    gbmj_server
    gbmj_tui

[importlinter:contract:server-layers]
name = the server's layers import only downwards (no cycle anywhere)
type = layers
containers =
    gbmj_server
layers =
    __main__
    cli
    server | door
    admin_socket
    moderation
    handlers
    services
    tournaments
    tables
    net
    profiles | export | backup | logs
    signing
    tls
    config
    ssh | web
    hosted
    launcher
    storage
    metrics | names | limits | settings_file

[importlinter:contract:client-layers]
name = the client's layers import only downwards
type = layers
containers =
    gbmj_tui
layers =
    __main__
    cli
    app
    screens | session | tools
    widgets | dispatch | solo | connection
    pinning | promises | explain | narrate | wire | local_server
    config | messages | reducers | tiles
    model | words
    errors
    i18n

[importlinter:contract:game-layers]
name = the pure game's layers import only downwards
type = layers
containers =
    gbmj
layers =
    coach
    replay | bots | economy | tournament
    game
    rules

[importlinter:contract:table-actors]
name = a table's state is touched by its own task only: the rest sends it commands
type = forbidden
source_modules =
{chr(10).join("    " + m for m in OUTSIDE_TABLES)}
forbidden_modules =
{chr(10).join("    " + m for m in TABLE_STATE)}
allow_indirect_imports = True

[importlinter:contract:client]
name = the terminal client talks to the server only through protocol
type = forbidden
source_modules =
    gbmj_tui
forbidden_modules =
    gbmj_server
"""


def _lint(tmp_path: Path, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "importlinter.ini"
    config.write_text(_contracts())
    lint_imports = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(lint_imports), "--config", str(config), "--no-cache"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
    )


def test_import_contracts_hold(tmp_path: Path) -> None:
    result = _lint(tmp_path)
    if result.returncode != 0:
        pytest.fail("import contracts broken:\n" + result.stdout + result.stderr)


def test_contract_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The check can fail: in a copy of the tree, a rules module importing ``time``
    breaks it."""
    copy = tmp_path / "tree"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("*.pyc"))
    (copy / "gbmj" / "rules" / "_layering_probe.py").write_text("import time\n")
    result = _lint(tmp_path, copy)
    assert result.returncode != 0
    assert "_layering_probe" in result.stdout


def test_contract_catches_a_handler_reading_a_table(tmp_path: Path) -> None:
    """The check can fail: in a copy of the tree, a handler importing the ``Table`` (to
    read its seats outside the table's task) breaks it."""
    copy = tmp_path / "tree"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("*.pyc"))
    (copy / "gbmj_server" / "handlers" / "_actor_probe.py").write_text(
        "from gbmj_server.tables.table import Table\n"
    )
    result = _lint(tmp_path, copy)
    assert result.returncode != 0
    assert "_actor_probe" in result.stdout
    assert "touched by its own task only" in result.stdout


def _module_cycles(*packages: str) -> list[list[str]]:
    """Every set of modules that import each other round a loop (the strongly connected
    components of the import graph with more than one module), imports made only for
    type checking included. The layer contracts above see a package as one layer, so a
    loop between two modules of one layer shows only here."""
    import grimp

    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(root: str) -> None:
        # Tarjan's algorithm with an explicit stack of (module, its imports left).
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imports = work[-1]
            for imported in imports:
                if imported not in index:
                    index[imported] = low[imported] = len(index)
                    stack.append(imported)
                    on_stack.add(imported)
                    work.append(
                        (imported, iter(sorted(graph.find_modules_directly_imported_by(imported))))
                    )
                    break
                if imported in on_stack:
                    low[module] = min(low[module], index[imported])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[module])
                if low[module] == index[module]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_round_a_loop() -> None:
    assert _module_cycles(*PACKAGES) == []


def test_the_loop_check_finds_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: two modules of a package made for the test import each other."""
    package = tmp_path / "loop_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loop_probe import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from loop_probe import a\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _module_cycles("loop_probe") == [["loop_probe.a", "loop_probe.b"]]
