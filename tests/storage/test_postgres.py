"""PostgreSQL storage as a host uses it: settlements racing from two stores on one
database, ``admin migrate-to`` from a SQLite file, the admin commands, the settings, and a
real server started with ``--db postgresql://...`` playing hands."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest
from server.crashing import AutoPlayer

from gbmj_server.cli import main
from gbmj_server.config import ServerConfig, load_config_file
from gbmj_server.storage import SCHEMA_VERSION, Payment, Storage, StorageError, hash_password
from gbmj_server.storage.matches import PlayerJoined
from gbmj_server.storage.postgres import shown
from gbmj_tui.local_server import game_port, read_until

SETTLEMENTS = 1000  # in all, half from each store
STAKE = 10  # alice pays bob this much a hand: exactly her 10,000 coins in 1,000 hands


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data directory (where a server on PostgreSQL keeps its certificate, keys and
    admin socket) in the test's folder, for this process and the servers it starts."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "gbmj"


def _match(store: Storage, alice: int, bob: int, table: int) -> int:
    players = [
        PlayerJoined(0, 0, 0, alice, "alice"),
        PlayerJoined(0, 1, 1, bob, "bob"),
        *(PlayerJoined(0, n, n, None, f"bot-{n}", bot_level="easy") for n in (2, 3)),
    ]
    return store.start_match(table, f"t{table}", {}, b"\x01" * 32, "alice", True, "", players)


@pytest.mark.slow
def test_settlements_racing_from_two_stores_leave_the_ledger_exact(
    db_target: str | Path,
) -> None:
    with Storage(db_target) as setup:
        alice = setup.create_account("alice", hash_password("a")).id
        bob = setup.create_account("bob", hash_password("b")).id
        matches = [_match(setup, alice, bob, table) for table in (1, 2)]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def settle(match_id: int) -> None:
        try:
            with Storage(db_target) as store:  # a store (a connection) of its own
                start.wait()
                for number in range(1, SETTLEMENTS // 2 + 1):
                    payments = [Payment(alice, bob, STAKE, "hand", 0, 1)]
                    ratings = [(alice, -1), (bob, 1)]
                    store.settle_hand(
                        match_id, number, 1, number, {}, b"", payments=payments, ratings=ratings
                    )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=settle, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    with Storage(db_target) as store:
        assert store.ledger_balanced()
        assert (store.balance(alice), store.balance(bob)) == (0, 2 * 10_000)
        assert store.total_coins() == 0
        hands = sum(len(store.hands(m)) for m in matches)
        assert hands == SETTLEMENTS
        paid = [t for t in store.ledger(alice, limit=10 * SETTLEMENTS) if t.reason == "hand"]
        assert len(paid) == SETTLEMENTS and sum(t.amount for t in paid) == 10_000
        assert store.rating(bob) == SETTLEMENTS and store.rating(alice) == 0
        for m in matches:
            coins = {p.n: p.coins for p in store.players_of(m)}
            assert (coins[0], coins[1]) == (-5_000, 5_000)


def _sqlite_with_history(path: Path) -> dict[str, int | None]:
    """A SQLite database as a server leaves it: players, a guest, a settled hand, an item,
    a session, a tournament; the balances it holds."""
    with Storage(path) as store:
        alice = store.create_account("Alice", hash_password("a")).id
        bob = store.create_account("bob", hash_password("b")).id
        store.create_guest("guest-1")
        match_id = _match(store, alice, bob, 1)
        store.settle_hand(
            match_id,
            1,
            1,
            1,
            {"winner": 0},
            b"\x00\x01log",
            payments=[Payment(bob, alice, 250, "hand", 1, 0)],
        )
        store.admin_adjust("bob", 1_000)
        store.give_item(alice, "tile_counter", 2)
        store.create_session(alice)
        store.create_tournament("club", "host", sessions=1, hands=4, minutes=60, drawn=True, seed=3)
        return {"Alice": store.balance(alice), "bob": store.balance(bob)}


@pytest.mark.postgres
def test_migrate_to_copies_a_sqlite_database_and_checks_the_ledger(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "old.sqlite3"
    balances = _sqlite_with_history(source)
    assert main(["admin", "--db", str(source), "migrate-to", pg_url]) == 0
    out = capsys.readouterr().out
    assert "ledger balanced: total 0" in out and "coin_transfer\t" in out
    with Storage(source) as old, Storage(pg_url) as new:
        for name, coins in balances.items():
            account = new.account_by_name(name.lower())  # names keep their case rule
            assert account is not None and account.name == name
            assert new.balance(account.id) == coins
        assert new.match_ids() == old.match_ids()
        (hand,) = new.hands(old.match_ids()[0])
        assert hand.event_log == b"\x00\x01log" and hand.result == {"winner": 0}
        assert [a.name for a in new.list_accounts(include_guests=True)] == [
            a.name for a in old.list_accounts(include_guests=True)
        ]
        assert new.tournaments()[0].name == "club"
        # New rows take ids past the copied ones.
        carol = new.create_account("carol", hash_password("c"))
        assert carol.id > max(a.id for a in old.list_accounts(include_guests=True))
        assert new.ledger_balanced()
    # A second copy into a database that holds data is refused and changes nothing.
    assert main(["admin", "--db", str(source), "migrate-to", pg_url]) == 1
    assert "not empty" in capsys.readouterr().err
    with Storage(pg_url) as new:
        assert len(new.list_accounts()) == 3 and new.ledger_balanced()


@pytest.mark.postgres
def test_admin_commands_work_on_postgresql(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Storage(pg_url) as store:
        store.create_account("alice", hash_password("a"))
    assert main(["admin", "--db", pg_url, "users"]) == 0
    assert "alice" in capsys.readouterr().out
    assert main(["admin", "--db", pg_url, "grant", "alice", "500"]) == 0
    assert "alice: 10500 coins" in capsys.readouterr().out
    assert main(["admin", "--db", pg_url, "take", "alice", "20000"]) == 1  # refused
    assert main(["admin", "--db", pg_url, "ban", "alice"]) == 0
    assert main(["admin", "--db", pg_url, "check"]) == 0
    assert "ledger balanced: total 0" in capsys.readouterr().out
    assert main(["admin", "--db", pg_url, "backup", "x.sqlite3"]) == 1
    assert "pg_dump" in capsys.readouterr().err
    with Storage(pg_url) as store:
        account = store.account_by_name("alice")
        assert account is not None and account.banned and store.balance(account.id) == 10_500


def test_the_settings_file_and_the_flag_select_postgresql(tmp_path: Path) -> None:
    settings = tmp_path / "server.toml"
    settings.write_text('db = "postgresql://gbmj@db.example/gbmj"\n')
    config = load_config_file(settings)
    assert config.database == "postgresql://gbmj@db.example/gbmj"
    assert config.db_path == ServerConfig().db_path  # beside-files in the data folder
    settings.write_text('db = "gbmj.sqlite3"\n')
    assert load_config_file(settings).database == tmp_path / "gbmj.sqlite3"
    assert shown("postgresql://gbmj:secret@db/gbmj") == "postgresql://gbmj:***@db/gbmj"
    assert shown("postgresql:///gbmj?password=secret&host=/run") == (
        "postgresql:///gbmj?password=***&host=/run"
    )


@pytest.mark.slow
def test_an_unreachable_database_is_one_clear_line_at_start(tmp_path: Path) -> None:
    url = f"postgresql:///nowhere?host={tmp_path}"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", url]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gbmj-server: cannot use the database")


@pytest.mark.slow
@pytest.mark.postgres
def test_a_server_on_postgresql_plays_hands_and_the_books_check(
    tmp_path: Path, pg_url: str, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "server.toml"
    config.write_text(f'bot_delay = 0\nhand_pause = 0\nlog_level = "warning"\ndb = "{pg_url}"\n')
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--insecure", "--trusted", "127.0.0.1", "--config", str(config)]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = read_until(proc, r"listening on", 60)
        assert lines is not None, "the server did not start"
        # A second server on the same database is refused while the first holds it.
        second = subprocess.run(
            [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", pg_url],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2 and "another gbmj-server" in second.stderr
        player = AutoPlayer(game_port(lines), "player")
        try:
            deadline = time.monotonic() + 120
            with psycopg.connect(pg_url) as conn:
                # Two hands, and stakes moved in one of them (a drawn hand moves none).
                query = (
                    "SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM "
                    "coin_transfer t WHERE t.hand_id = hand.id)) FROM hand"
                )
                while (row := conn.execute(query).fetchone()) is None or row[0] < 2 or not row[1]:
                    assert time.monotonic() < deadline, "no hand was played"
                    assert proc.poll() is None
                    time.sleep(0.1)
        finally:
            player.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert main(["admin", "--db", pg_url, "check"]) == 0
    assert "ledger balanced: total 0" in capsys.readouterr().out
    assert (data_home / "tls_cert.pem").exists()  # the files beside a database: here
    assert not list(data_home.glob("*.sqlite3"))  # and no SQLite file
    with Storage(pg_url) as store:
        account = store.account_by_name("player")
        assert account is not None
        assert [t for t in store.ledger(account.id) if t.hand_id is not None]  # stakes moved


@pytest.mark.postgres
def test_a_store_connects_again_after_its_connection_dropped(pg_url: str) -> None:
    with Storage(pg_url) as store:
        alice = store.create_account("alice", hash_password("a")).id
        with psycopg.connect(pg_url, autocommit=True) as other:  # as a database restart does
            other.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        with pytest.raises(psycopg.OperationalError):
            store.admin_adjust("alice", 5)  # the call in flight fails, changing nothing
        assert store.balance(alice) == 10_000  # the next one connects again
        assert store.admin_adjust("alice", 5) == 10_005 and store.ledger_balanced()


@pytest.mark.postgres
def test_the_migrations_run_once_even_from_two_stores_at_once(pg_url: str) -> None:
    opened: list[Storage] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def open_store() -> None:
        try:
            start.wait()
            opened.append(Storage(pg_url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for store in opened:
        store.close()
    with Storage(pg_url) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store._db.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1
        assert store._db.execute("SELECT count(*) FROM wallet").fetchone()[0] == 1  # the house
        store.create_account("alice", hash_password("a"))
    with Storage(pg_url) as store:  # reopened: nothing applied again, the data kept
        assert store.account_by_name("alice") is not None and store.ledger_balanced()


@pytest.mark.postgres
def test_a_newer_schema_is_refused_on_postgresql(pg_url: str) -> None:
    Storage(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StorageError, match="newer"):
        Storage(pg_url)
