"""``gbmj export`` over the protocol against the real server (a ``gbmj-server`` process
on loopback serving TLS, on a copy of the recorded world's database), ``gbmj verify``
on the files it writes and on forgeries of them, and ``gbmj-server admin export`` from
the database."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import World, host_replay
from recorder import PASSWORD

from gbmj.replay import dumps, loads
from gbmj.replay.verify import documented_commitment
from gbmj_server import cli
from gbmj_server.backup import backup
from gbmj_server.net.dispatch import SERVER_NAME
from gbmj_server.storage import Storage
from gbmj_tui import promises, tools
from gbmj_tui.local_server import start_local_server
from gbmj_tui.pinning import known_servers_path
from protocol.tls import fingerprint


@pytest.fixture(scope="module")
def served(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The real server on a copy of the world (it resumes the world's running match, and
    guests it lets in are its own), TLS on loopback with its own certificate: its
    address and the fingerprint it prints."""
    copy = tmp_path_factory.mktemp("served") / "gbmj.sqlite3"
    backup(world.path, copy)
    process, port = start_local_server(copy, tls=True)
    try:
        der = base64.b64decode(
            "".join((copy.parent / "tls_cert.pem").read_text().splitlines()[1:-1])
        )
        yield f"127.0.0.1:{port}", fingerprint(der)
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture
def server(served: tuple[str, str]) -> str:
    return served[0]


@pytest.fixture(autouse=True)
def client_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The client's settings (its known servers, its kept commitments) in the test's own
    folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return known_servers_path().parent


def export(server: str, target: str, out: Path | None, name: str | None = "alice") -> int:
    argv = ["export", target, "--server", server]  # TLS, the certificate pinned on first use
    argv += ["--out", str(out)] if out else []
    return tools.run(argv + (["--name", name] if name else []))


@pytest.mark.slow
def test_an_exported_match_verifies(
    world: World,
    server: str,
    served: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
    out = tmp_path / "stake.json"
    assert export(server, f"m{world.stake.match_id}", out) == 0
    assert capsys.readouterr().out == f"wrote {out}: match {world.stake.match_id}, 4 hands\n"
    replay = loads(out.read_text("utf-8"))
    unsigned = [replace(h, signature=None) for h in replay.hands]  # each export signs afresh
    assert unsigned == [replace(h, signature=None) for h in host_replay(world, world.stake).hands]
    assert replay.server == f"{SERVER_NAME} {server}" and replay.exporter == "gbmj/0.1.0"
    assert tools.run(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[-1].endswith("no mismatch") and "MISMATCH" not in text
    # verify names the server it checked the signature against: the one pinned
    assert text.splitlines()[0].endswith(
        f"of {server}: 4 of 4 hands (replay format 2, written by gbmj/0.1.0)"
    )
    assert f"server: the certificate {served[1]} of {server} (pinned" in text
    assert tools.run(["verify", str(out), "--server", server]) == 0
    assert tools.run(["verify", str(out), "--key", served[1]]) == 0


@pytest.mark.slow
def test_one_hand_exports_alone(
    world: World, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
    monkeypatch.chdir(tmp_path)
    hand_id = world.free.hand_ids[2]
    assert export(server, f"h{hand_id}", None) == 0  # to the file named after it
    (hand,) = loads((tmp_path / f"gbmj-hand-{hand_id}.json").read_text("utf-8")).hands
    assert hand.hand_id == hand_id and hand.number == 3
    assert tools.verify_file(tmp_path / f"gbmj-hand-{hand_id}.json", server).ok


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


def test_the_host_exports_from_the_database(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "host.json"
    argv = ["admin", "--db", str(world.path), "export", str(world.stake.match_id)]
    assert cli.main([*argv, "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: match {world.stake.match_id}, 4 of 4 hands\n"
    replay = loads(out.read_text("utf-8"))
    assert replay.match.stake == 10 and replay.exporter.endswith("admin export")
    assert tools.verify_file(out, key=world.signer.fingerprint).ok  # the host's own key
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


# -- forged and hostile files: each refused, the reason in the last line ------------------


@pytest.fixture(scope="module")
def exported(
    world: World, served: tuple[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """alice's honest exports of the free and the stake match, from the real server."""
    where = tmp_path_factory.mktemp("exported")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CONFIG_HOME", str(where / "config"))
        env.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
        files = {}
        for which in ("free", "stake"):
            out = where / f"{which}.json"
            assert export(served[0], f"m{getattr(world, which).match_id}", out) == 0
            files[which] = json.loads(out.read_text("utf-8"))
    return files


def pin(served: tuple[str, str]) -> None:
    """The test's client has connected to the server once: its certificate is pinned."""
    server, print_ = served
    path = known_servers_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{server} {print_}\n", "utf-8")


def verify(
    data: dict[str, Any] | bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[str]]:
    """``gbmj verify`` of ``data`` (a file's JSON, or its bytes): the status and lines."""
    path = tmp_path / "file.json"
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    code = tools.run(["verify", str(path), *args])
    return code, capsys.readouterr().out.splitlines()


def copy(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def test_an_honest_export_verifies_naming_its_server(
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pin(served)
    code, lines = verify(exported["stake"], tmp_path, capsys)
    assert code == 0, "\n".join(lines)
    assert lines[-1].startswith("verified: ") and lines[-1].endswith("checks, no mismatch")
    assert f"the certificate {served[1]} of {served[0]}" in lines[2]


def test_another_matchs_hand_with_a_raised_standing_is_refused(
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A hand of another match (signed, but for its own match) passed off as this
    match's hand 1, and alice +500,000 in the standings."""
    pin(served)
    data = copy(exported["stake"])
    match_id = data["match"]["match_id"]
    data["hands"][0] = copy(exported["free"]["hands"][0])
    alice = next(s for s in data["match"]["standings"] if s["name"] == "alice")
    alice["points"] += 500_000
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1
    assert lines[-1].startswith("NOT VERIFIED (") and "hand 1, signature: " in lines[-1]
    text = "\n".join(lines)
    assert f"not the wall promised for hand 1 of match {match_id}" in text
    assert f"the server did not sign match {match_id}'s record as the file has it" in text


def test_a_new_salt_with_its_commitment_recomputed_is_refused(
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The commitment recomputed for a new salt, binding and all: the file agrees with
    itself, not with what the server signed nor with what this client was promised."""
    pin(served)
    data = copy(exported["stake"])
    match_id = data["match"]["match_id"]
    hand = data["hands"][2]
    honest = hand["wall"]["commitment"]
    wall = hand["wall"]
    wall["salt"] = "ab" * 16
    wall["commitment"] = documented_commitment(match_id, 3, wall["order"], wall["salt"])
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1
    assert lines[-1] == (
        "NOT VERIFIED (1 mismatch): hand 3, signature: the server did not sign this hand as "
        f"the file has it in match {match_id} (changed since it was signed, or a hand of "
        "another match)"
    )
    assert any(line.startswith("  ok        commitment: ") for line in lines)  # consistent
    # The client that played it kept the commitment it was shown before the deal.
    promises.keep(promises.commitments_path(), served[0], served[1], match_id, 3, honest)
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1
    promised = [line for line in lines if "promised: " in line]
    assert len(promised) == 4 and promised[2].startswith(
        "  MISMATCH  promised: this client was shown "
    )
    assert promised[2].endswith("not the wall this player was promised")
    assert "this client kept no commitment of this hand" in promised[0]


def test_payments_times_100_without_the_stake_are_refused(
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pin(served)
    data = copy(exported["stake"])
    for hand in data["hands"]:
        if hand["result"].get("coins"):
            hand["result"]["coins"] = [c * 100 for c in hand["result"]["coins"]]
    for standing in data["match"]["standings"]:
        standing["coins"] *= 100
    code, lines = verify(data, tmp_path, capsys)  # the stake still says 10
    assert code == 1 and lines[-1].startswith("NOT VERIFIED (")
    assert any("MISMATCH  coins: " in line and "stake 10" in line for line in lines)
    del data["match"]["stake"]
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith("NOT VERIFIED: ") and "file.match.stake" in lines[0]


def test_a_wrong_signature_is_refused(
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pin(served)
    data = copy(exported["free"])
    data["match"]["signature"] = data["hands"][0]["signature"]  # a real signature, not its
    data["hands"][1]["signature"] = base64.b64encode(b"\0" * 70).decode()
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1 and lines[-1].startswith("NOT VERIFIED (2 mismatches): hand 2, signature")
    assert any(
        line.startswith("  MISMATCH  signature: the server did not sign match") for line in lines
    )
    del data["hands"][2]["signature"]
    code, lines = verify(data, tmp_path, capsys)
    assert code == 1 and "NOT VERIFIED (3 mismatches)" in lines[-1]


def test_a_file_of_another_or_an_unpinned_server_is_refused(
    world: World,
    exported: dict[str, dict[str, Any]],
    served: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file signed by a key no pinned server holds (here the host's export of the
    same matches from another copy of the database, with its own key), a file of a
    server this client never pinned, and a file with no signature at all."""
    other = json.loads(dumps(host_replay(world, world.stake)))
    code, lines = verify(exported["stake"], tmp_path, capsys)  # nothing pinned yet
    assert code == 1 and len(lines) == 1
    assert lines[0] == (
        f"NOT VERIFIED: signed by the certificate {served[1]}, which is not pinned for any "
        f"server in {known_servers_path()}: a file from a server you did not name"
    )
    pin(served)
    code, lines = verify(other, tmp_path, capsys)
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith(
        f"NOT VERIFIED: signed by the certificate {world.signer.fingerprint}"
    )
    code, lines = verify(other, tmp_path, capsys, "--server", served[0])
    assert code == 1 and len(lines) == 1 and f"which is not pinned for {served[0]}" in lines[0]
    code, lines = verify(exported["stake"], tmp_path, capsys, "--server", "127.0.0.1:9")
    assert code == 1 and lines == [
        f"NOT VERIFIED: no certificate is pinned for 127.0.0.1:9 in {known_servers_path()}: "
        "connect to it once, or name its key with --key"
    ]
    code, lines = verify(exported["stake"], tmp_path, capsys, "--key", world.signer.fingerprint)
    assert code == 1 and len(lines) == 1 and "which is not the key given" in lines[0]
    unsigned = copy(exported["stake"])
    del unsigned["certificate"]
    code, lines = verify(unsigned, tmp_path, capsys)
    assert code == 1 and lines == [
        "NOT VERIFIED: the file carries no server signature: nothing outside it vouches for it"
    ]


HOSTILE: dict[str, bytes] = {
    "nested arrays": b"[" * 100_000,
    "nested objects": b'{"a":' * 50_000,
    "nested in a field": b'{"format": "gbmj-replay", "version": 2, "match": '
    + b"[" * 5_000
    + b"]" * 5_000
    + b"}",
    "a huge file": b'{"format": "gbmj-replay", "pad": "' + b" " * (5 * 1024 * 1024) + b'"}',
    "binary": bytes(range(256)) * 4,
    "a huge number": b'{"format": "gbmj-replay", "version": 1' + b"0" * 100_000 + b"}",
    "wrong types": b'{"format": "gbmj-replay", "version": 2, "server": 1, "exporter": [],'
    b' "match": "abc", "hands": {"a": 1}, "certificate": null}',
    "an old version": b'{"format": "gbmj-replay", "version": 1}',
}


@pytest.mark.parametrize("what", list(HOSTILE))
def test_a_hostile_file_gets_one_line(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = verify(HOSTILE[what], tmp_path, capsys)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("NOT VERIFIED: "), lines


def test_dev_zero_and_a_folder_get_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert tools.run(["verify", "/dev/zero"]) == 1
    assert capsys.readouterr().out == (
        "NOT VERIFIED: /dev/zero: too large for a replay file (over 4 MiB)\n"
    )
    assert tools.run(["verify", "/"]) == 1
    assert capsys.readouterr().out == "NOT VERIFIED: cannot read /: Is a directory\n"
    assert tools.run(["verify", "/nonexistent/x.json"]) == 1
    assert capsys.readouterr().out.startswith("NOT VERIFIED: cannot read /nonexistent/x.json: ")


@pytest.mark.slow
def test_gbmj_verify_of_dev_zero_runs_in_bounded_memory(tmp_path: Path) -> None:
    """The real command in its own process: one line, status 1, and the most memory it
    held stays far below what reading /dev/zero to its end would take (it never ends)."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'gbmj_tui', 'verify', '/dev/zero'],"
        " capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(done.stdout, end='')\n"
        "print(done.stderr, end='')\n"
    )
    env = {"XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    ).stdout.splitlines()
    code, max_rss_kib = map(int, out[0].split())
    assert code == 1
    assert out[1:] == ["NOT VERIFIED: /dev/zero: too large for a replay file (over 4 MiB)"]
    assert max_rss_kib < 256 * 1024, f"{max_rss_kib} KiB"


def test_the_kept_commitments_stay_small(tmp_path: Path) -> None:
    """The client's file of commitments keeps the newest hands and never grows past its
    bound; each server's hands are its own."""
    path = tmp_path / "commitments"
    key = "SHA256:" + ":".join(["AB"] * 32)
    for n in range(1, 6001):
        promises.keep(path, "host:7415", key, n, 1 + n % 16, f"{n:064x}")
        assert path.stat().st_size <= promises.MAX_BYTES
    kept = promises.kept(path, {"host:7415"})
    assert kept[6000, 1] == f"{6000:064x}"
    assert (1, 2) not in kept and 1000 < len(kept) < 6000
    assert promises.kept(path, set(), key) == kept  # the same server by its certificate
    assert promises.kept(path, {"other:7415"}, "SHA256:CD") == {}
    assert promises.kept(tmp_path / "none", {"host:7415"}) == {}


@pytest.mark.slow
def test_a_saved_hand_of_a_private_match_replays_but_exports_with_a_clear_reason(
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Anyone with a saved hand's id may replay it (docs/rules.md §2.6), but a replay file
    needs its match's signed record, which alice may not read: she is told why."""
    copy = tmp_path / "served" / "gbmj.sqlite3"
    copy.parent.mkdir()
    backup(world.path, copy)
    with Storage(copy) as store:
        carol = store.account_by_name("carol")
        assert carol is not None
        store.save_hand(carol.id, world.private.hand_ids[0], None)
    process, port = start_local_server(copy, tls=True)
    try:
        monkeypatch.setenv(tools.PASSWORD_VARIABLE, PASSWORD)
        out = tmp_path / "x.json"
        assert export(f"127.0.0.1:{port}", f"h{world.private.hand_ids[0]}", out) == 1
        assert "a saved hand you may replay, but its match is not one" in capsys.readouterr().err
        assert not out.exists()
    finally:
        process.terminate()
        process.wait(timeout=20)
