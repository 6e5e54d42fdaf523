"""The player's session on a connection: who signed in, and the table they are at.

A ``Connection`` carries bytes; its ``Session`` is the player behind them. The account
and token are set by ``Sessions`` (sign-in and sign-out); ``table`` is kept by the
tables' registry from the tables' reports (``gbmj_server.tables.registry``), so a
handler reads where the player is without touching any table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gbmj_server.storage import Account


@dataclass(eq=False)
class Session:
    account: Account | None = None
    token: str | None = None
    table: int | None = None  # the id of the table the player is at (a member of)
    mutes: set[int] = field(default_factory=set)  # accounts whose chat the player does not want
    host_muted: bool = False  # the host muted this account: its chat goes nowhere

    @property
    def account_id(self) -> int | None:
        return None if self.account is None else self.account.id

    @property
    def name(self) -> str:
        return self.account.name if self.account else ""
