"""The launcher (gbmj_server.launcher) behind the front doors, over the web door without
a browser: each session's client is a child of its own, so a crash or an exit ends that
session only; a launcher killed is started again, and the doors keep serving, the
sessions it had started included."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.css import stylesheet as stylesheet_module
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

from gbmj_server.launcher import (
    OBJECT_MAP,
    _launcher_environment,
    share_css_parses,
    write_object_map,
)
from gbmj_tui.app import GbmjApp
from web.conftest import WebTerminal, start_web_host, stop_web_host, until, web_terminal

CTRL_Q = "\x11"


async def responsive(term: WebTerminal, name: str) -> None:
    """The session's client takes keys and draws them: a name typed into the Name box."""
    await term.settle()
    mark = len(term.raw)
    await term.send(name)
    await term.wait_for(name, since=mark)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


def test_a_crash_or_an_exit_ends_that_session_alone(tmp_path: Path) -> None:
    host = start_web_host(tmp_path)
    try:

        async def scenario() -> None:
            launcher = host.launcher_pid()
            assert launcher is not None
            async with (
                web_terminal(host, "ws/en", source="127.0.0.2") as one,
                web_terminal(host, "ws/en", source="127.0.0.3") as two,
                web_terminal(host, "ws/en", source="127.0.0.4") as three,
            ):
                terms = [one, two, three]
                for term in terms:
                    await term.wait_for("Guest")
                pids = host.client_pids()
                assert len(set(pids)) == 3 and launcher not in pids
                os.kill(pids[0], signal.SIGSEGV)  # a crash, in one of the three
                closed = asyncio.wait(
                    [asyncio.ensure_future(t.closed.wait()) for t in terms],
                    timeout=60,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                await closed
                crashed = [t for t in terms if t.closed.is_set()]
                assert len(crashed) == 1  # that session alone
                leaving, staying = [t for t in terms if t not in crashed]
                await leaving.send(CTRL_Q)  # a client that quits: its process exits
                await asyncio.wait_for(leaving.closed.wait(), 60)
                await responsive(staying, "still-here")
                assert host.launcher_pid() == launcher and alive(launcher)
                await until(lambda: len(host.client_pids()) == 1)
                async with web_terminal(host, "ws/en", source="127.0.0.5") as newcomer:
                    await newcomer.wait_for("Guest")  # the launcher starts clients still

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_a_killed_launcher_is_started_again_and_its_sessions_go_on(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, max_sessions=2)
    try:

        async def scenario() -> None:
            first = host.launcher_pid()
            assert first is not None
            async with web_terminal(host, "ws/en", source="127.0.0.2") as before:
                await before.wait_for("Guest")
                (orphan,) = host.client_pids()
                os.kill(first, signal.SIGKILL)
                await until(lambda: host.launcher_pid() not in (None, first))
                await responsive(before, "kept")  # its client lives on
                async with web_terminal(host, "ws/en", source="127.0.0.3") as after:
                    await after.wait_for("Guest")  # the new launcher starts clients
                    await responsive(after, "fresh")
            # Both ended with their tabs (the first one's end seen without its launcher),
            # and their places are free again.
            await until(lambda: not alive(orphan) and host.client_pids() == [])
            async with (
                web_terminal(host, "ws/en", source="127.0.0.4") as third,
                web_terminal(host, "ws/en", source="127.0.0.5") as fourth,
            ):
                await third.wait_for("Guest")
                await fourth.wait_for("Guest")

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_the_launchers_css_parses_are_every_later_apps(monkeypatch: pytest.MonkeyPatch) -> None:
    """``share_css_parses``: an app after the first takes the first's rules, not parsed
    again, the same rules an app parses alone; another theme's variables get a parse
    of their own."""

    tokens: list[dict[str, list[Any]]] = []  # each app's theme variables, as tokens

    async def rules(theme: str | None = None) -> list[RuleSet]:
        app = GbmjApp(lang="en", hosted=True, server="127.0.0.1:1", insecure=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            if theme is not None:
                app.theme = theme
                await pilot.pause()
            tokens.append(app.stylesheet._variable_tokens)
            return list(app.stylesheet.rules)

    alone = asyncio.run(rules())
    # Textual's own parser again after this test (the launcher alone keeps the change).
    monkeypatch.setattr(Stylesheet, "_parse_rules", Stylesheet._parse_rules)
    monkeypatch.setattr(stylesheet_module, "tokenize_values", stylesheet_module.tokenize_values)
    share_css_parses()
    first, second = asyncio.run(rules()), asyncio.run(rules())
    assert tokens[0] == tokens[1] == tokens[2]  # the same tokens, each app its own lists
    assert not {id(v) for v in tokens[1].values()} & {id(v) for v in tokens[2].values()}
    assert all(
        a is b for name in tokens[1] for a, b in zip(tokens[1][name], tokens[2][name], strict=True)
    )
    assert [repr((r.selector_set, r.styles.get_rules())) for r in first] == [
        repr((r.selector_set, r.styles.get_rules())) for r in alone
    ]  # (a layout compares by identity: its repr, by kind)
    assert len(second) == len(first) and all(a is b for a, b in zip(first, second, strict=True))
    light = asyncio.run(rules("textual-light"))
    assert light and not {id(rule) for rule in light} & {id(rule) for rule in first}


def offered_heap(pid: int) -> bool:
    """Whether the heap of ``pid`` is offered to the kernel's same-page merging (KSM):
    ``mg`` among its mapping's flags."""
    in_heap = False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if line[:1].isdigit() or line[:1] in "abcdef":
            in_heap = line.endswith("[heap]")
        elif in_heap and line.startswith("VmFlags:"):
            return "mg" in line.split()[1:]
    return False


def test_the_launcher_and_its_sessions_offer_their_pages_to_merge(tmp_path: Path) -> None:
    """The launcher offers its memory to same-page merging before its first fork, and a
    session's client holds the offer (what the pages it copied need to be merged back)."""
    host = start_web_host(tmp_path)
    try:

        async def scenario() -> None:
            launcher = host.launcher_pid()
            assert launcher is not None and offered_heap(launcher)
            async with web_terminal(host, "ws/en", source="127.0.0.2") as term:
                await term.wait_for("Guest")
                (client,) = host.client_pids()
                assert offered_heap(client)

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_on_an_older_kernel_each_private_mapping_is_offered() -> None:
    """``offer_mappings`` (no process-wide offer before Linux 6.4): the heap and the
    private writable memory there is, in a process of its own."""
    check = (
        "import os, sys; sys.path.insert(0, sys.argv[1]); "
        "from gbmj_server.launcher import offer_mappings; assert offer_mappings() > 0; "
        "from web.test_launcher import offered_heap; assert offered_heap(os.getpid())"
    )
    tests = str(Path(__file__).resolve().parent.parent)
    subprocess.run([sys.executable, "-c", check, tests], check=True, timeout=60)


def test_the_object_map_says_where_the_launchers_objects_lie(tmp_path: Path) -> None:
    """bench/pages.py reads it: an object held by a list is there, with its address,
    its size and whether the collector's links precede it."""
    marker, held = b"gbmj-marker" * 3, [b"x"]
    held.append(marker)
    write_object_map(str(tmp_path / "objects.txt"))
    lines = (tmp_path / "objects.txt").read_text().splitlines()
    assert f"{id(marker)} {type(marker).__sizeof__(marker)} 0 builtins.bytes" in lines
    assert f"{id(held)} {type(held).__sizeof__(held)} 1 builtins.list" in lines


def test_only_the_object_maps_path_reaches_the_launcher_of_the_servers_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GBMJ_TEST_SERVER_ONLY", "1")
    assert "GBMJ_TEST_SERVER_ONLY" not in _launcher_environment("/nowhere")
    assert OBJECT_MAP not in _launcher_environment("/nowhere")
    monkeypatch.setenv(OBJECT_MAP, "/tmp/objects.txt")
    assert _launcher_environment("/nowhere")[OBJECT_MAP] == "/tmp/objects.txt"
