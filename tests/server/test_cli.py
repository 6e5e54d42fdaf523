"""``gbmj-server``: settings, the admin commands, and a real run stopped by SIGINT/SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gbmj_server import cli
from gbmj_server.cli import admin
from gbmj_server.config import ConfigError, ServerConfig, load_config_file
from gbmj_server.storage import Storage, hash_password, verify_password
from server.wireclient import WireDecoder, encode


def test_config_file_then_command_line(tmp_path: Path) -> None:
    config_file = tmp_path / "gbmj.toml"
    config_file.write_text('[server]\nhost = "0.0.0.0"\nport = 9000\ndb = "data/x.sqlite3"\n')
    config = load_config_file(config_file)
    assert config == ServerConfig(host="0.0.0.0", port=9000, db=tmp_path / "data/x.sqlite3")
    # The command line wins over the file, setting by setting.
    args = cli._serve_parser().parse_args(["--config", str(config_file), "--port", "9001"])
    config = cli._config(args)
    assert (config.host, config.port) == ("0.0.0.0", 9001)
    assert config.db == tmp_path / "data/x.sqlite3"
    config_file.write_text("port = 70000\n")
    with pytest.raises(ConfigError, match="port"):
        load_config_file(config_file)
    config_file.write_text("colour = 1\n")
    with pytest.raises(ConfigError, match="colour"):
        load_config_file(config_file)


def test_admin_users_reset_ban(tmp_path: Path, capsys, monkeypatch) -> None:
    db = tmp_path / "admin.sqlite3"
    with Storage(db) as store:
        store.create_account("alice", hash_password("old-password"))
        token = store.create_session(store.account_by_name("alice").id)
    assert admin(["--db", str(db), "users"]) == 0
    assert "alice" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("new-password\n"))
    assert admin(["--db", str(db), "reset-password", "alice"]) == 0
    assert admin(["--db", str(db), "ban", "alice"]) == 0
    assert admin(["--db", str(db), "ban", "nobody"]) == 1
    assert admin(["--db", str(db), "users"]) == 0
    assert "banned" in capsys.readouterr().out
    with Storage(db) as store:
        alice = store.account_by_name("alice")
        assert alice.banned and verify_password(alice.password_hash, "new-password")
        assert store.resolve_session(token) is None
    assert admin(["--db", str(db), "unban", "alice"]) == 0
    with Storage(db) as store:
        assert not store.account_by_name("alice").banned


def _read(sock: socket.socket, decoder: WireDecoder, until: str | None) -> list[dict]:
    """Messages until one of type ``until`` (None: until the server closes)."""
    out: list[dict] = []
    while data := sock.recv(65536):
        out.extend(decoder.feed(data))
        if until is not None and any(m["type"] == until for m in out):
            break
    return out


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_server_prints_where_and_stops_cleanly(tmp_path: Path, signum: int) -> None:
    db = tmp_path / "run.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", str(db), "--insecure"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:") and int(first.rsplit(":", 1)[1]) > 0
        assert second.strip() == f"database: {db}"
        port = int(first.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(encode({"type": "hello", "version": 1, "client": "test/1"}))
            sock.sendall(encode({"type": "guest", "id": 1}))
            decoder = WireDecoder()
            messages = _read(sock, decoder, until="session")
            proc.send_signal(signum)
            messages += _read(sock, decoder, until=None)  # told, then closed
        assert [m["type"] for m in messages] == ["welcome", "session", "notice"]
        assert messages[-1]["code"] == "restarting"
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()
    with Storage(db) as store:  # the file is whole and migrated
        assert store.schema_version() >= 1


def test_admin_grant_take_ledger_check(tmp_path: Path, capsys) -> None:
    db = tmp_path / "coins.sqlite3"
    with Storage(db) as store:
        store.create_account("alice", "h")
    assert admin(["--db", str(db), "grant", "alice", "250"]) == 0
    assert "alice: 10250 coins" in capsys.readouterr().out
    assert admin(["--db", str(db), "take", "alice", "1000"]) == 0
    capsys.readouterr()
    # Bad amounts: a clear error, nothing changes.
    for bad in (["grant", "alice", "-5"], ["take", "alice", "0"], ["grant", "alice", "10" * 8]):
        assert admin(["--db", str(db), *bad]) == 1
    assert admin(["--db", str(db), "take", "alice", "9251"]) == 1  # more than she has
    assert admin(["--db", str(db), "grant", "nobody", "5"]) == 1
    err = capsys.readouterr().err
    assert "positive" in err and "fewer than" in err and "nobody" in err
    assert admin(["--db", str(db), "ledger", "alice"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("alice: 9250 coins")
    assert "house -> alice\t250\tadmin" in out and "alice -> house\t1000\tadmin" in out
    assert admin(["--db", str(db), "check"]) == 0
    assert "ledger balanced: total 0" in capsys.readouterr().out
    with Storage(db) as store:
        assert store.balance(store.account_by_name("alice").id) == 9_250
        store._db.execute("UPDATE wallet SET balance = balance + 7 WHERE id = 1")
    assert admin(["--db", str(db), "check"]) == 1


def test_shop_prices_are_a_setting(tmp_path: Path) -> None:
    config_file = tmp_path / "shop.toml"
    config_file.write_text("[shop]\ntile_counter = 600\ntable_sign = 0\n")
    assert load_config_file(config_file).shop == (("table_sign", 0), ("tile_counter", 600))
    config_file.write_text("[shop]\ndiamond = 5\n")
    with pytest.raises(ConfigError, match="diamond"):
        load_config_file(config_file)
    config_file.write_text("[shop]\ntile_counter = -1\n")
    with pytest.raises(ConfigError, match="tile_counter"):
        load_config_file(config_file)


def test_the_limits_table_sets_each_limit_and_refuses_bad_values(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text('[limits]\nrequest_rate = 5.5\noutbox_frames = 64\ntrusted = ["10.0.0.1"]\n')
    limits = load_config_file(path).limits
    assert (limits.request_rate, limits.outbox_frames, limits.trusted) == (5.5, 64, ("10.0.0.1",))
    for bad in ("outbox_frames = 1.5", "request_rate = -1", "nonsense = 3", 'trusted = "x"'):
        path.write_text(f"[limits]\n{bad}\n")
        with pytest.raises(ConfigError):
            load_config_file(path)
