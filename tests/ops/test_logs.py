"""The server's log in both formats: an event is one line with its ids as fields, text
from players cannot break or forge a line, secrets never reach the file, and the
``--log-format``/``--log-file`` flags of a real server run."""

from __future__ import annotations

import json
import logging
import re
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gbmj_server import logs
from gbmj_server.config import ConfigError, ServerConfig
from gbmj_tui.local_server import LISTENING, game_port, read_until
from protocol import messages as m
from protocol.framing import FrameDecoder, encode

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
HOSTILE = 'evil\n2026-01-01T00:00:00.000Z INFO login_ok account=1 "\x1b[31m\u2028end'
SECRETS = ("hunter2-pw", "tok-5f1e2d3c4b5a69788796a5b4", "n3w-pass", "table-pw-9")


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[tuple[Path, logging.Handler]]:
    path = tmp_path / "logs" / "gbmj.log"
    handlers = []

    def open_log(log_format: str) -> logging.Handler:
        handler = logs.setup(ServerConfig(log_format=log_format, log_file=path))
        handlers.append(handler)
        return handler

    yield path, open_log
    root = logging.getLogger()
    for handler in handlers:
        root.removeHandler(handler)
        handler.close()


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


def test_text_event_is_one_line_with_its_ids(log_file) -> None:
    path, open_log = log_file
    open_log("text")
    logs.event("hand_ended", table=3, match=12, hand=40, outcome="win")
    logs.event("connection_closed", connection=9, reason="peer closed", name="小明")
    logging.getLogger("gbmj_server.net.server").warning("signal %s: shutting down", 15)
    first, second, third = _lines(path)
    assert re.fullmatch(TIME + " INFO hand_ended table=3 match=12 hand=40 outcome=win", first)
    assert second.endswith(' INFO connection_closed connection=9 reason="peer closed" name="小明"')
    assert re.fullmatch(TIME + " WARNING gbmj_server.net.server: signal 15: shutting down", third)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_json_event_is_one_object_a_line(log_file) -> None:
    path, open_log = log_file
    open_log("json")
    logs.event("settled", table=3, match=12, hand=40, coins=-320, final=True)
    logging.getLogger("gbmj_server.tables").info("table %d closed", 3)
    event, other = (json.loads(line) for line in _lines(path))
    assert re.fullmatch(TIME, event.pop("time"))
    assert event == {
        "level": "info",
        "event": "settled",
        "table": 3,
        "match": 12,
        "hand": 40,
        "coins": -320,
        "final": True,
    }
    assert {k: other[k] for k in ("level", "logger", "message")} == {
        "level": "info",
        "logger": "gbmj_server.tables",
        "message": "table 3 closed",
    }


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_text_from_players_cannot_break_or_forge_a_line(log_file, log_format: str) -> None:
    path, open_log = log_file
    open_log(log_format)
    logs.event("chat", account=5, table=1, line=HOSTILE)
    logging.getLogger("gbmj_server.x").info("%s sat down", HOSTILE)
    try:
        raise ValueError(HOSTILE)
    except ValueError:
        logging.getLogger("gbmj_server.x").exception("handler failed")
    raw = path.read_text("utf-8")
    assert "\x1b" not in raw and "\u2028" not in raw
    lines = raw.splitlines()
    starts = [line for line in lines if re.match(TIME, line)]
    if log_format == "json":
        assert len(lines) == 3 and json.loads(lines[0])["line"] == HOSTILE
        assert json.loads(lines[1])["message"] == f"{HOSTILE} sat down"
        assert HOSTILE in json.loads(lines[2])["error"]
    else:
        # The traceback runs on over "  | " lines; no line starts as a forged record.
        assert len(starts) == 3 and all(line.startswith("  | ") for line in lines[3:])
        assert not any(line.startswith("2026-01-01") for line in lines)


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_secrets_never_reach_the_log(log_file, log_format: str) -> None:
    path, open_log = log_file
    open_log(log_format)
    password, token, new, table_password = SECRETS
    log = logging.getLogger("gbmj_server.x")
    logs.event("login_failed", account="alice", password=password, session_token=token)
    log.info("got %r", m.Login(id=4, name="alice", password=password))
    log.info("got %r", m.ChangePassword(id=5, old=password, new=new))
    log.info("wire %r", {"type": "change_password", "old": password, "new": new})
    log.info("join %s", {"type": "sit", "table_id": 1, "password": table_password})
    log.info(f"resume token={token} from 10.0.0.1")  # as a careless caller would
    log.debug("never written at info: %s", password)
    try:
        raise PermissionError(f"refused password='{password}'")
    except PermissionError:
        log.exception("login handler failed")
    text = path.read_text("utf-8")
    for secret in SECRETS:
        assert secret not in text
    assert "<login id=4>" in text and "<change_password id=5>" in text
    assert "alice" in text and "10.0.0.1" in text  # the rest of each line is kept
    assert text.count("***") >= 6


def test_bad_event_names_and_log_files_are_refused(tmp_path: Path) -> None:
    for bad in ("Hand Ended", "", "x" * 41):
        with pytest.raises(ValueError):
            logs.event(bad)
    with pytest.raises(ValueError, match="not an event or field name"):
        logs.event("hand_ended", **{"Table": 1})
    with pytest.raises(ValueError, match="time"):
        logs.event("hand_ended", time=3)
    with pytest.raises(ConfigError, match="cannot open the log file"):
        logs.setup(ServerConfig(log_file=tmp_path))  # a folder


@pytest.mark.slow
def test_a_real_server_logs_json_to_its_file(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", str(tmp_path / "db")]
    proc = subprocess.Popen(
        [*command, "--log-format", "json", "--log-file", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("listening on ")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    records = [json.loads(line) for line in _lines(log)]
    assert {"level": "info", "logger": "gbmj_server.server"}.items() <= records[-1].items()
    assert records[-1]["message"] == "signal 15: stopping"
    assert "stopping" not in err  # the log went to the file only


@pytest.mark.slow
def test_a_failed_sign_in_is_logged_with_its_code_and_no_password(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--insecure"]
    proc = subprocess.Popen(
        [*command, "--db", str(tmp_path / "db"), "--log-format", "json", "--log-file", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = read_until(proc, LISTENING.pattern, 20)
        assert lines is not None
        port = game_port(lines)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            decoder = FrameDecoder()
            replies: list[m.Message] = []
            for request in (
                m.Hello(id=1, version=m.PROTOCOL_VERSION, client="test"),
                m.Login(id=2, name="nobody", password="hunter2-secret"),
            ):
                sock.sendall(encode(request))
                while not any(r.id == request.id for r in replies):
                    replies += decoder.feed(sock.recv(65536))
        refusal = replies[-1]
        assert isinstance(refusal, m.Error) and refusal.id == 2
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    text = log.read_text("utf-8")
    assert "hunter2-secret" not in text
    (failed,) = [json.loads(line) for line in _lines(log) if '"sign_in_failed"' in line]
    assert failed["request"] == "login"
    assert failed["code"] == refusal.code.value
    assert failed["level"] == "info"
