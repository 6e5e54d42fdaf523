"""``gbmj-server``: run the lobby server, or administer its accounts.

    gbmj-server [--host H] [--port P] [--ssh-port P] [--web-port P] [--db PATH|URL]
                [--config FILE.toml] [--tls-cert PEM --tls-key PEM | --insecure]
                [--metrics-port P] [--log-level L] [--log-format text|json]
                [--log-file PATH] [--version]
    gbmj-server door --server HOST:PORT (--fingerprint SHA256:... | --insecure)
                [--host H] [--ssh-port P] [--web-port P] [--db PATH|URL]
                [--config FILE.toml] [--log-level L] [--log-format text|json]
    gbmj-server admin [--db PATH|URL] [--config FILE.toml] users
    gbmj-server admin ... reset-password NAME | ban NAME | unban NAME
    gbmj-server admin ... grant NAME COINS | take NAME COINS | ledger [NAME] | check
    gbmj-server admin ... give NAME ITEM [COUNT] | save-hand NAME HAND
    gbmj-server admin ... backup FILE | restore FILE | export ID [--out FILE]
    gbmj-server admin [--db PATH] migrate-to postgresql://...
    gbmj-server admin ... tournament create NAME [options] | open ID | close ID
                          | start ID | drop ID NAME | list | standings ID
                          | export ID [--out PREFIX] | allow NAME | disallow NAME

Settings: ``gbmj_server.config`` (defaults, then the TOML file, then the command line).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import importlib.metadata
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from gbmj_server import admin_socket, logs
from gbmj_server.backup import backup, restore
from gbmj_server.config import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    LOG_FORMATS,
    LOG_LEVELS,
    ConfigError,
    ServerConfig,
    check_advertise,
    check_config,
    check_node,
    load_config_file,
)
from gbmj_server.export import admin_export
from gbmj_server.signing import Signer, load_signer
from gbmj_server.storage import (
    LedgerError,
    Storage,
    StorageError,
    hash_password,
    hold_for_server,
)
from gbmj_server.storage.move import migrate_to
from gbmj_server.storage.postgres import DatabaseError as PgError
from gbmj_server.storage.postgres import is_database_url, shown
from gbmj_server.storage.tournaments import TournamentError
from gbmj_server.tls import TlsError
from gbmj_server.tournaments.runner import load_detail
from gbmj_server.tournaments.wire import dumps, export_csv
from protocol.messages import STACK_LIMIT
from protocol.vocabulary import Item


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be 0-65535")
    return port


def _database(text: str) -> Path | str:
    """``--db``: a PostgreSQL URL as it is, anything else a SQLite file."""
    return text if is_database_url(text) else Path(text)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=_database,
        help="SQLite database file (default: user data dir) or postgresql://... URL",
    )
    parser.add_argument("--config", type=Path, help="TOML file with the same settings")
    parser.add_argument("--node", help="the node's name on PostgreSQL (default: host name)")


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gbmj-server",
        description="The gbmj lobby server (Chinese Official Mahjong). "
        "'gbmj-server admin --help' for account administration.",
    )
    parser.add_argument("--host", help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=_port, help=f"TCP port (default {DEFAULT_PORT}; 0 = free)")
    parser.add_argument("--ssh-port", type=_port, help="also serve SSH play on this port")
    parser.add_argument("--web-port", type=_port, help="also serve play in a browser here")
    parser.add_argument("--tls-cert", type=Path, help="your certificate (PEM; default: made)")
    parser.add_argument("--tls-key", type=Path, help="the key of --tls-cert (PEM)")
    parser.add_argument(
        "--insecure", action="store_true", default=None, help="serve plain TCP, no TLS"
    )
    parser.add_argument("--metrics-port", type=_port, help="HTTP /metrics and /healthz port")
    parser.add_argument("--advertise", help="HOST:PORT players reach this node at (redirects)")
    parser.add_argument("--metrics-host", help=f"address of the metrics (default {DEFAULT_HOST})")
    parser.add_argument("--log-level", choices=LOG_LEVELS, help="default info")
    parser.add_argument("--log-format", choices=LOG_FORMATS, help="default text")
    parser.add_argument("--log-file", type=Path, help="append the log here (default stderr)")
    parser.add_argument(
        "--trusted",
        action="append",
        metavar="ADDRESS",
        help="an address with no per-address caps (limits.trusted): a private server's own",
    )
    parser.add_argument("--version", action="version", version=_version("gbmj-server"))
    _common(parser)
    return parser


def _door_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gbmj-server door",
        description="The SSH and web doors in a process of their own, against a game node "
        "(docs/hosting.md, 'Doors on another machine'). The door secret comes from "
        "GBMJ_DOOR_SECRET or door_secret in --config, never the command line.",
    )
    parser.add_argument("--server", required=True, metavar="HOST:PORT", help="the game node")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--fingerprint", metavar="SHA256:...", help="the game's certificate, as it prints it"
    )
    how.add_argument("--insecure", action="store_true", help="the game serves plain TCP")
    parser.add_argument("--host", help=f"address the doors listen on (default {DEFAULT_HOST})")
    parser.add_argument("--ssh-port", type=_port, help="serve SSH play on this port")
    parser.add_argument("--web-port", type=_port, help="serve play in a browser here")
    parser.add_argument("--log-level", choices=LOG_LEVELS, help="default info")
    parser.add_argument("--log-format", choices=LOG_FORMATS, help="default text")
    parser.add_argument("--log-file", type=Path, help="append the log here (default stderr)")
    _common(parser)  # --db: where SSH players sign in (the game's database)
    return parser


def door(argv: Sequence[str]) -> int:
    """The ``door`` subcommand: run the doors until SIGINT/SIGTERM; the exit status."""
    import os

    import trio

    from gbmj_server.door import Door, DoorError, run_door, secret_from

    args = _door_parser().parse_args(argv)
    try:
        config = _config(args)
        logs.setup(config)
        if config.ssh.port is None and config.web.port is None:
            raise DoorError("no door to serve: give --ssh-port, --web-port or both")
        if config.ssh.port is not None and config.db is None:
            raise DoorError("the SSH door signs players in from the game's database: give --db")
        spec = Door(args.server, args.fingerprint, secret_from(config, os.environ))
        if spec.secret is None:
            print("door: no door secret: the game counts every player under this address")
        trio.run(run_door, config, spec)
    except (ConfigError, DoorError) as exc:
        print(f"gbmj-server door: {exc}", file=sys.stderr)
        return 2
    return 0


def _version(program: str) -> str:
    return f"{program} {importlib.metadata.version('gbmj')}"


def _admin_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gbmj-server admin", description="Administer accounts.")
    _common(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("users", help="list the accounts")
    sub.add_parser(
        "migrate-to", help="copy the SQLite database into an empty PostgreSQL database"
    ).add_argument("url", type=_database)
    for name, text in (
        ("reset-password", "set a new password (read from the terminal or stdin)"),
        ("ban", "ban an account and end its sessions"),
        ("unban", "lift a ban"),
        ("mute", "mute an account: its chat goes nowhere"),
        ("unmute", "lift a mute"),
        ("kick", "take a player off their table (the running server only)"),
    ):
        sub.add_parser(name, help=text).add_argument("name")
    sub.add_parser("announce", help="a message to everyone connected").add_argument("text")
    for name, text in (
        ("grant", "give an account coins from the house"),
        ("take", "take coins from an account back to the house"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("name")
        command.add_argument("coins", type=int)
    give = sub.add_parser("give", help="put items in an account's inventory (no coins move)")
    give.add_argument("name")
    give.add_argument("item", choices=[item.value for item in Item])
    give.add_argument("count", type=int, nargs="?", default=1)
    save = sub.add_parser(
        "save-hand", help="keep a hand for good in an account's saved hands (no recorder used)"
    )
    save.add_argument("name")
    save.add_argument("hand", type=int)
    sub.add_parser("ledger", help="an account's coin transfers (no name: the house)").add_argument(
        "name", nargs="?"
    )
    sub.add_parser("check", help="check that the coin ledger balances")
    export = sub.add_parser("export", help="write a match (88) or a hand (h412) to a replay file")
    export.add_argument("id")
    export.add_argument("--out", type=Path, help="the file (default gbmj-match-88.json)")
    sub.add_parser(
        "backup", help="a consistent copy of the database, also while the server runs"
    ).add_argument("file", type=Path)
    sub.add_parser(
        "restore", help="replace the database with a backup (the server stopped)"
    ).add_argument("file", type=Path)
    _tournament_parser(sub.add_parser("tournament", help="club tournaments (docs/hosting.md)"))
    return parser


def _tournament_parser(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    create = sub.add_parser("create", help="a new tournament, open for registration")
    create.add_argument("name")
    create.add_argument("--sessions", type=int, help="1-16 (default 4)")
    create.add_argument("--hands", type=int, help="a session's hands at most, 1-16 (default 16)")
    create.add_argument("--minutes", type=int, help="a session's time limit (default 90)")
    create.add_argument("--seed", type=int, help="the draw's seed (default: drawn)")
    create.add_argument(
        "--seed-order", action="store_true", help="session 1 by entry order, not drawn"
    )
    create.add_argument("--leaders-last", action="store_true", help="高高碰 in the last session")
    create.add_argument(
        "--absent-counts", action="store_true", help="an absent player's bot's result counts"
    )
    create.add_argument("--spectators", action="store_true", help="others may watch its tables")
    create.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate: every table of a session plays the same deals (--hands of them)",
    )
    create.add_argument(
        "--scale",
        help="a duplicate tournament's scale: steps (the default step scale), raw (the "
        "difference itself), or rising thresholds in points, e.g. 10,20,40,80",
    )
    create.add_argument("--turn", type=int, help="seconds a turn (default 15)")
    create.add_argument("--grace", type=int, help="seconds a session waits for its players")
    create.add_argument("--pause", type=int, help="seconds between two sessions (default 60)")
    for action, text in (
        ("open", "open registration"),
        ("close", "close registration"),
        ("start", "seat the first session (the running server only)"),
        ("standings", "the standings"),
    ):
        sub.add_parser(action, help=text).add_argument("id", type=int)
    drop = sub.add_parser("drop", help="seat a player no more (their results stay)")
    drop.add_argument("id", type=int)
    drop.add_argument("name")
    sub.add_parser("list", help="every tournament")
    for action, text in (
        ("allow", "let a player create and run tournaments"),
        ("disallow", "no longer"),
    ):
        sub.add_parser(action, help=text).add_argument("name")
    export = sub.add_parser("export", help="standings and results as CSV and JSON files")
    export.add_argument("id", type=int)
    export.add_argument("--out", help="the files' prefix (default gbmj-tournament-ID)")


def _tournament(args: argparse.Namespace, config: ServerConfig) -> int:
    """``admin tournament``: the changes through the running server's admin socket, the
    readings from the file."""
    if args.action in ("create", "open", "close", "start", "drop"):
        request: dict[str, object] = {"command": "tournament", "action": args.action}
        if args.action == "create":
            request["name"] = args.name
            for key, value in (
                ("sessions", args.sessions),
                ("hands", args.hands),
                ("minutes", args.minutes),
                ("seed", args.seed),
                ("turn_seconds", args.turn),
                ("grace_seconds", args.grace),
                ("pause_seconds", args.pause),
                ("scale", args.scale),
            ):
                if value is not None:
                    request[key] = value
            request["drawn"] = not args.seed_order
            request["leaders_last"] = args.leaders_last
            request["absent_counts"] = args.absent_counts
            request["spectators"] = args.spectators
            request["duplicate"] = args.duplicate
        else:
            request["id"] = args.id
            if args.action == "drop":
                request["name"] = args.name
        reply = admin_socket.call(config.admin_path, request)
        if reply is None:
            print(_no_server(config), file=sys.stderr)
            return 1
        print(reply.get("message", ""), file=sys.stdout if reply.get("ok") else sys.stderr)
        return 0 if reply.get("ok") else 1
    with Storage(config.database) as store:
        if args.action in ("allow", "disallow"):
            account = store.account_by_name(args.name)
            if account is None or account.is_guest:
                print(f"no player named {args.name!r}", file=sys.stderr)
                return 1
            store.set_organiser(account.id, args.action == "allow")
            print(f"{account.name} {'may' if args.action == 'allow' else 'may not'} organise")
            return 0
        if args.action == "list":
            for t in store.tournaments():
                count = len(store.entrants(t.id))
                print(f"{t.id}\t{t.name}\t{t.state}\tsession {t.current}/{t.sessions}\t{count}")
            return 0
        try:
            detail = load_detail(store, args.id)
        except TournamentError as exc:
            print(str(exc), file=sys.stderr)
            return 1
    standings, results = export_csv(detail)
    if args.action == "standings":
        print(standings, end="")
        return 0
    prefix = args.out or f"gbmj-tournament-{args.id}"
    for suffix, text in (
        ("-standings.csv", standings),
        ("-results.csv", results),
        (".json", dumps(detail) + "\n"),
    ):
        Path(prefix + suffix).write_text(text, encoding="utf-8")
        print(f"wrote {prefix}{suffix}")
    return 0


# Admin commands that reach a running server through its admin socket (the others, and
# these without a server, act on the database file).
LIVE = ("reset-password", "ban", "unban", "mute", "unmute", "kick", "grant", "take", "announce")

# The settings a flag of the same name (``--log-format`` for ``log_format``) sets.
COMMAND_LINE_KEYS = (
    *("host", "port", "db", "log_level", "log_format", "log_file"),
    *("tls_cert", "tls_key", "insecure", "metrics_port", "metrics_host"),
)


def _config(args: argparse.Namespace) -> ServerConfig:
    config = ServerConfig()
    if args.config is not None:
        config = load_config_file(args.config, config)
    for key in COMMAND_LINE_KEYS:
        value = getattr(args, key, None)
        if value is not None:
            config = replace(config, **{key: value})
    if getattr(args, "node", None) is not None:
        config = replace(config, node=check_node(args.node))
    if getattr(args, "advertise", None) is not None:
        config = replace(config, advertise=check_advertise(args.advertise))
    if getattr(args, "ssh_port", None) is not None:
        config = replace(config, ssh=replace(config.ssh, port=args.ssh_port))
    if getattr(args, "web_port", None) is not None:
        config = replace(config, web=replace(config.web, port=args.web_port))
    if getattr(args, "trusted", None):
        trusted = (*config.limits.trusted, *args.trusted)
        config = replace(config, limits=replace(config.limits, trusted=trusted))
    return check_config(config)


def _no_server(config: ServerConfig) -> str:
    """Why an admin command found no running server to reach."""
    if isinstance(config.database, str):  # a node of several: its own admin socket
        return (
            f"no node {config.node} runs on this machine "
            "(--node: the name of a node started here, with the same data directory)"
        )
    return f"no server is running on {config.db_path}"


def _read_new_password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("new password: ")
        if getpass.getpass("again: ") != first:
            raise SystemExit("passwords differ")
        return first
    return sys.stdin.readline().rstrip("\n")


def admin(argv: Sequence[str]) -> int:
    """The ``admin`` subcommand; returns the exit status."""
    args = _admin_parser().parse_args(argv)
    config = _config(args)
    if args.command in ("backup", "restore"):  # on the file, not through the store
        if isinstance(config.database, str):
            print("backup and restore are SQLite's: use pg_dump and pg_restore", file=sys.stderr)
            return 1
        return _backup_or_restore(args.command, args.file, config.db_path)
    if args.command == "tournament":
        return _tournament(args, config)
    if args.command == "migrate-to":
        return _migrate_to(config, args.url)
    if args.command in LIVE:  # through the running server, so that it acts at once
        request = {"command": args.command, "name": getattr(args, "name", None)}
        if args.command in ("grant", "take"):
            if args.coins <= 0:
                print("the amount must be a positive number of coins", file=sys.stderr)
                return 1
            request["coins"] = args.coins
        elif args.command == "reset-password":
            password = _read_new_password()
            if not password:
                print("empty password refused", file=sys.stderr)
                return 1
            request["hash"] = hash_password(password)
        elif args.command == "announce":
            request["text"] = args.text
        reply = admin_socket.call(config.admin_path, request)
        if reply is not None:
            print(reply.get("message", ""), file=sys.stdout if reply.get("ok") else sys.stderr)
            return 0 if reply.get("ok") else 1
        if args.command in ("kick", "announce"):
            print(_no_server(config), file=sys.stderr)
            return 1
        if args.command == "reset-password":  # the hash made above: the file alone now
            args.password_hash = request["hash"]
    with Storage(config.database) as store:
        try:
            if args.command == "users":
                for account in store.list_accounts():
                    flag = "  banned" if account.banned else ""
                    print(f"{account.id}\t{account.name}{flag}")
            elif args.command == "reset-password":
                store.set_password_hash(args.name, args.password_hash)
                print(f"password of {args.name} reset; its sessions ended")
            elif args.command in ("ban", "unban"):
                store.set_banned(args.name, args.command == "ban")
                print(f"{args.name} {args.command}ned")
            elif args.command in ("mute", "unmute"):
                found = store.account_by_name(args.name)
                if found is None:
                    print(f"no account named {args.name!r}", file=sys.stderr)
                    return 1
                store.set_host_muted(found.id, args.command == "mute")
                print(f"{args.name} {args.command}d")
            elif args.command in ("grant", "take"):
                sign = 1 if args.command == "grant" else -1
                balance = store.admin_adjust(args.name, sign * args.coins)
                print(f"{args.name}: {balance} coins")
            elif args.command == "give":
                found = store.account_by_name(args.name)
                if found is None or not 1 <= args.count <= STACK_LIMIT:
                    print(f"no account named {args.name!r}, or a count not 1-99", file=sys.stderr)
                    return 1
                store.give_item(found.id, args.item, args.count)
                print(f"{args.name}: {store.item_count(found.id, args.item)} {args.item}")
            elif args.command == "save-hand":
                found = store.account_by_name(args.name)
                if found is None:
                    print(f"no account named {args.name!r}", file=sys.stderr)
                    return 1
                store.save_hand(found.id, args.hand, None)
                print(f"hand {args.hand} kept for good in {args.name}'s saved hands")
            elif args.command == "ledger":
                return _print_ledger(store, args.name)
            elif args.command == "export":
                server = f"gbmj-server {config.host}:{config.port}"
                return admin_export(store, args.id, args.out, server, load_signer(config))
            elif args.command == "check":
                ok = store.ledger_balanced()
                print(f"ledger {'balanced' if ok else 'NOT BALANCED'}: total {store.total_coins()}")
                return 0 if ok else 1
        except (StorageError, LedgerError) as exc:
            print(str(exc), file=sys.stderr)
            return 1
    return 0


def _migrate_to(config: ServerConfig, url: Path | str) -> int:
    """``admin migrate-to URL``: the SQLite database (``--db``, or the default file)
    copied into the empty PostgreSQL database at ``url``, the ledger checked after."""
    if not isinstance(url, str):
        print("migrate-to takes a postgresql://... URL", file=sys.stderr)
        return 1
    if isinstance(config.database, str):
        print("--db must name the SQLite file to copy", file=sys.stderr)
        return 1
    try:
        moved = migrate_to(config.db_path, url)
    except (StorageError, PgError) as exc:
        print(f"nothing copied: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    for table, count in moved.rows.items():
        print(f"{table}\t{count}")
    print(f"copied into {shown(url)}; ledger balanced: total {moved.total_coins}")
    print(f"start the server with --db {shown(url)}")
    return 0


def _backup_or_restore(command: str, file: Path, db_path: Path) -> int:
    try:
        if command == "backup":
            copy = backup(db_path, file)
            print(f"backup of {db_path} written to {copy.path} ({copy.size} bytes)")
        else:
            copy, before = restore(file, db_path)
            if before is not None:
                print(f"the database as it was: {before.path}")
            print(f"{db_path} restored from {file} (schema {copy.schema})")
    except StorageError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    return 0


def _print_ledger(store: Storage, name: str | None) -> int:
    """An account's balance and transfers, newest first (no name: the house's)."""
    account_id = None
    if name is not None:
        account = store.account_by_name(name)
        if account is None:
            print(f"no account named {name!r}", file=sys.stderr)
            return 1
        account_id = account.id
    names = {a.id: a.name for a in store.list_accounts(include_guests=True)}
    print(f"{name or 'house'}: {store.balance(account_id)} coins")
    for t in store.ledger(account_id):
        source = names.get(t.from_account, "house") if t.from_account else "house"
        target = names.get(t.to_account, "house") if t.to_account else "house"
        where = f" hand {t.hand_id}" if t.hand_id else ""
        where = where or (f" match {t.match_id}" if t.match_id else "")
        print(f"{t.id}\t{source} -> {target}\t{t.amount}\t{t.reason}{where}")
    return 0


def serve(argv: Sequence[str]) -> int:
    """Run the server until SIGINT/SIGTERM; returns the exit status."""
    args = _serve_parser().parse_args(argv)
    try:
        config = _config(args)
        logs.setup(config)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    import trio

    from gbmj_server.server import run_server
    from gbmj_server.tls import server_tls

    with contextlib.ExitStack() as held:
        try:  # the database checked and held first: a clear line and status 2, no traceback
            held.enter_context(hold_for_server(config.database, config.node))
            tls = server_tls(config)  # made on first start, next to the database
        except (StorageError, ConfigError) as exc:
            print(f"gbmj-server: {exc}", file=sys.stderr)
            return 2
        try:  # the same key (made beside the database for a plain server)
            signer: Signer | None = load_signer(config)
        except TlsError as exc:  # the game is served all the same; its replays prove less
            print(f"replays: not signed: {exc}", flush=True)
            signer = None
        trio.run(run_server, config, tls, signer)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["admin"]:
            return admin(argv[1:])
        if argv[:1] == ["door"]:
            return door(argv[1:])
        return serve(argv)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
