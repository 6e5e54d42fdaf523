"""Solo play: ``gbmj solo`` runs a server of its own and plays there as a real player.

The local account (a name and a random password, never typed by the player) is kept in
the user's data directory beside the server's database, readable by the user only, so
coins, items, levels and the history carry over from one solo game to the next.
``gbmj solo --guest`` plays as a guest instead, keeping nothing.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from gbmj_tui.config import Address
from gbmj_tui.errors import RequestFailed
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import BotLevel

ACCOUNT_FILE = "solo-account.json"
DEFAULT_NAME = "player"

# Solo's paces (``gbmj solo --timers``, or asked at the start): relaxed by default, for a
# new player learning the fans; standard is an online table's default (docs/rules.md §2.3).
PACES = {
    "relaxed": m.TimerSettings(
        on=True, first_discard=60, turn=30, claim_window=10, pung_window=6, reserve=180
    ),
    "standard": m.TimerSettings(
        on=True, first_discard=30, turn=15, claim_window=5, pung_window=3, reserve=60
    ),
    "off": m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5),
}
DEFAULT_PACE = "relaxed"


@dataclass(frozen=True, slots=True)
class LocalAccount:
    name: str
    password: str


@dataclass(frozen=True, slots=True)
class Solo:
    """Where the solo server listens, and the local account's file (None: a guest)."""

    address: Address
    account_file: Path | None = None
    pace: str | None = DEFAULT_PACE  # a key of PACES; None: ask the player at the start


def local_name() -> str:
    """The user's login name, kept to letters and digits the server takes."""
    with contextlib.suppress(Exception):  # no login name (a container): the default
        name = re.sub(r"[^A-Za-z0-9_]", "", getpass.getuser())[:16]
        if name and not name.lower().startswith("bot"):
            return name
    return DEFAULT_NAME


def load_account(path: Path) -> LocalAccount | None:
    try:
        data = json.loads(path.read_text("utf-8"))
        return LocalAccount(str(data["name"]), str(data["password"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_account(path: Path, account: LocalAccount) -> None:
    """Write the account readable by the user only (it holds a password)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"name": account.name, "password": account.password}, out)
    os.replace(tmp, path)


def new_account(taken: int = 0) -> LocalAccount:
    """A fresh local account; ``taken``: how many names were refused already."""
    name = local_name() if taken == 0 else f"{local_name()[:20]}{taken + 1}"
    return LocalAccount(name, secrets.token_urlsafe(18))


async def solo_sign_in(
    sign_in: Callable[[m.Message], Awaitable[m.Profile]], account_file: Path | None
) -> m.Profile:
    """Sign in with the local account kept in ``account_file``: log in, or register it
    (again, on a new database), under another name if the name is taken; a guest when
    there is no file to keep it in (``--guest``) or no name is free."""
    if account_file is None:
        return await sign_in(m.Guest(name=None))
    account = load_account(account_file)
    if account is not None:
        try:
            return await sign_in(m.Login(name=account.name, password=account.password))
        except RequestFailed as exc:  # a new database: register the account again
            if exc.code != ErrorCode.BAD_CREDENTIALS:
                raise
    for taken in range(10):
        account = new_account(taken) if account is None or taken else account
        try:
            profile = await sign_in(m.Register(name=account.name, password=account.password))
        except RequestFailed as exc:
            if exc.code not in (ErrorCode.NAME_TAKEN, ErrorCode.BAD_NAME):
                raise
            continue
        save_account(account_file, account)
        return profile
    return await sign_in(m.Guest(name=None))


async def solo_table(
    request: Callable[[m.Message], Awaitable[m.Message]],
    *,
    guest: bool,
    pace: str = DEFAULT_PACE,
) -> None:
    """The solo table: created, the player at seat 0, three bots, ready. Coins move
    from the first game on (stake 1), except for a guest."""
    settings = m.TableSettings(
        name="solo", stake=0 if guest else 1, timers=PACES[pace], rounds=1, bots_allowed=True
    )
    snapshot = await request(m.CreateTable(settings=settings))
    assert isinstance(snapshot, m.Snapshot)
    table_id = snapshot.table.table_id
    await request(m.Sit(table_id=table_id, seat=0))
    for seat in (1, 2, 3):
        await request(m.AddBot(table_id=table_id, seat=seat, level=BotLevel.NORMAL))
    await request(m.Ready(table_id=table_id, ready=True))
