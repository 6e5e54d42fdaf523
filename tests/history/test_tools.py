"""``gbmj export`` over the protocol against the real server (a ``gbmj-server`` process
on loopback, serving a copy of the recorded world's database), ``gbmj verify`` on the
files it writes, and ``gbmj-server admin export`` from the database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import World, host_replay
from recorder import PASSWORD

from gbmj.replay import dumps, loads
from gbmj_server import cli
from gbmj_server.backup import backup
from gbmj_server.net.dispatch import SERVER_NAME
from gbmj_tui import tools
from gbmj_tui.local_server import start_local_server


@pytest.fixture(scope="module")
def server(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server on a copy of the world (it resumes the world's running match, and
    guests it lets in are its own), plain TCP on loopback."""
    copy = tmp_path_factory.mktemp("served") / "gbmj.sqlite3"
    backup(world.path, copy)
    process, port = start_local_server(copy)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)


def export(server: str, target: str, out: Path | None, name: str | None = "alice") -> int:
    argv = ["export", target, "--server", server, "--insecure"]  # the test server is plain TCP
    argv += ["--out", str(out)] if out else []
    return tools.run(argv + (["--name", name] if name else []))


def test_an_exported_match_verifies(
    world: World,
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
    out = tmp_path / "stake.json"
    assert export(server, f"m{world.stake.match_id}", out) == 0
    assert capsys.readouterr().out == f"wrote {out}: match {world.stake.match_id}, 4 hands\n"
    replay = loads(out.read_text("utf-8"))
    assert replay.hands == host_replay(world, world.stake).hands
    assert replay.server == f"{SERVER_NAME} {server}" and replay.exporter == "gbmj/0.1.0"
    assert tools.run(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[-1].endswith("no mismatch") and "MISMATCH" not in text


def test_one_hand_exports_alone(
    world: World, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
    monkeypatch.chdir(tmp_path)
    hand_id = world.free.hand_ids[2]
    assert export(server, f"h{hand_id}", None) == 0  # to the file named after it
    (hand,) = loads((tmp_path / f"gbmj-hand-{hand_id}.json").read_text("utf-8")).hands
    assert hand.hand_id == hand_id and hand.number == 3
    assert tools.verify_file(tmp_path / f"gbmj-hand-{hand_id}.json").ok


def test_a_guest_exports_a_public_match_only(
    world: World, server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export(server, str(world.free.match_id), tmp_path / "free.json", name=None) == 0
    out = tmp_path / "stake.json"
    assert export(server, str(world.stake.match_id), out, name=None) == 1
    error = capsys.readouterr().err
    assert error == (
        f"gbmj export: the server has no match {world.stake.match_id} that you may read\n"
    )
    assert not out.exists()


def test_a_player_cannot_export_another_players_private_match(
    world: World, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
    assert export(server, f"m{world.private.match_id}", tmp_path / "x.json") == 1
    assert export(server, f"h{world.private.hand_ids[0]}", tmp_path / "x.json") == 1
    assert not (tmp_path / "x.json").exists()


def test_sign_in_and_connection_errors_are_clear(
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, "not-the-password")
    assert export(server, "1", tmp_path / "x.json") == 1
    assert capsys.readouterr().err == "gbmj export: cannot sign in: wrong name or password\n"
    assert export("127.0.0.1:1", "1", tmp_path / "x.json", name=None) == 1
    assert "cannot connect to 127.0.0.1:1" in capsys.readouterr().err
    assert export(server, "match-1", tmp_path / "x.json", name=None) == 1
    assert "is no id: a match is 88 or m88, a hand h412" in capsys.readouterr().err


def test_verify_fails_on_a_tampered_file(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(dumps(host_replay(world, world.free)))
    data["hands"][3]["wall"]["salt"] = "00" * 16
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data), "utf-8")
    assert tools.run(["verify", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  MISMATCH  commitment: ") for line in lines)
    assert lines[-1] == "NOT VERIFIED: 1 mismatch"
    assert tools.run(["verify", str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().out


def test_the_host_exports_from_the_database(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "host.json"
    argv = ["admin", "--db", str(world.path), "export", str(world.stake.match_id)]
    assert cli.main([*argv, "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: match {world.stake.match_id}, 4 of 4 hands\n"
    replay = loads(out.read_text("utf-8"))
    assert replay.match.stake == 10 and replay.exporter.endswith("admin export")
    assert tools.verify_file(out).ok
    # A running match: its settled hand only.
    running = ["admin", "--db", str(world.path), "export", f"m{world.running.match_id}"]
    assert cli.main([*running, "--out", str(tmp_path / "running.json")]) == 0
    assert len(loads((tmp_path / "running.json").read_text("utf-8")).hands) == 1
    assert cli.main(["admin", "--db", str(world.path), "export", "99999"]) == 1
    assert capsys.readouterr().err.endswith("export: no match 99999 in this database\n")


def test_the_client_hands_its_tool_commands_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools.hand_over(["solo"])  # not a tool: returns, for the client to start
    tools.hand_over([])
    with pytest.raises(SystemExit) as stopped:
        tools.hand_over(["verify", str(tmp_path / "none.json")])
    assert stopped.value.code == 1 and "cannot read" in capsys.readouterr().out
