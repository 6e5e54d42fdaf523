"""The lobby: the table list as the tables last published it, and who watches it.

Each table's actor publishes its ``TableInfo`` here whenever its room changes; nothing
else writes the list. Clients that watch the lobby (``watch_lobby``) get one page of it,
then coalesced ``lobby_update`` frames: at most one each ``interval`` seconds, carrying
the latest state of every table that changed on their page (not every intermediate
change) and the counters. Watchers of the same page share one diff, encoded once, so a
burst of a thousand changes costs each watcher a handful of frames, and the cost of a
change does not grow with the number of watchers × changes. A client at a table does not
watch: it gets its own table's changes from the table.

The counters alone (players online, tables) go out at most once each ``COUNTS_INTERVAL``:
every sign-in changes the count, and a frame that changes one number still costs every
watching client a redraw (a club night's hundred players signing in within a minute
would otherwise redraw every lobby twice a second). An update for a table carries them
as they are.

Watchers are split into ``COHORTS`` by connection, and each cohort's turn comes at its
own point of the interval: thousands of watchers get their updates spread over the
interval instead of in one burst of writes that every table's next step would wait
behind.

On several nodes (``gbmj_server.nodes.listener``) the list also holds the other nodes'
tables (``remote``), and this node's changes and lobby chat go out through the hooks
``on_change`` and ``on_chat``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from gbmj_server.net.connection import Connection
from gbmj_server.net.sessions import Sessions
from protocol import messages as m
from protocol.framing import encode

UPDATE_INTERVAL = 0.5  # seconds between two lobby updates to a watcher, at least
COUNTS_INTERVAL = 5.0  # seconds between two updates that change only the counters, at least
COHORTS = 10  # groups of watchers updated at different points of the interval


@dataclass(eq=False)
class Page:
    """What the watchers of one page in one cohort were last sent: table id -> the
    version sent."""

    offset: int
    cohort: int
    sent: dict[int, int] = field(default_factory=dict)
    online: int = -1
    total: int = -1
    counted: float = float("-inf")  # when the counters last went out (trio's clock)
    watchers: set[Connection] = field(default_factory=set)


class Lobby:
    def __init__(self, sessions: Sessions, interval: float = UPDATE_INTERVAL) -> None:
        self.sessions = sessions
        self.interval = interval
        self._infos: dict[int, m.TableInfo] = {}
        self._versions: dict[int, int] = {}
        self._order: list[int] = []  # table ids, ascending: the list's order
        self._version = 0
        self._pages: dict[tuple[int, int], Page] = {}  # (offset, cohort) -> its page
        self._page_of: dict[Connection, Page] = {}
        self.remote: set[int] = set()  # the listed tables another node runs
        self.remote_players = 0  # signed in on the other nodes
        self.on_change: Callable[[int], None] | None = None  # a table of this node changed
        self.on_chat: Callable[[m.Chat, int], None] | None = None  # a line said on this node

    # -- what tables publish ---------------------------------------------------------
    def publish(self, info: m.TableInfo, *, local: bool = True) -> None:
        """A table's entry, as its table (``local``) or another node published it."""
        table_id = info.table_id
        if table_id not in self._infos:
            bisect.insort(self._order, table_id)
        self._infos[table_id] = info
        self._version += 1
        self._versions[table_id] = self._version
        if local:
            self.remote.discard(table_id)
            if self.on_change is not None:
                self.on_change(table_id)
        else:
            self.remote.add(table_id)

    def remove(self, table_id: int, *, local: bool = True) -> None:
        if not local and table_id not in self.remote:
            return  # this node runs it now
        self.remote.discard(table_id)
        if self._infos.pop(table_id, None) is not None:
            self._order.remove(table_id)
            del self._versions[table_id]
            self._version += 1
        if local and self.on_change is not None:
            self.on_change(table_id)

    def info(self, table_id: int) -> m.TableInfo | None:
        return self._infos.get(table_id)

    @property
    def tables(self) -> int:
        return len(self._order)

    @property
    def online(self) -> int:
        """Players signed in, on every node."""
        return self.sessions.signed_in + self.remote_players

    # -- what clients read -------------------------------------------------------------
    def _page_ids(self, offset: int) -> list[int]:
        return self._order[offset : offset + m.TABLE_PAGE]

    def page(self, offset: int = 0) -> m.TableList:
        return m.TableList(
            tables=tuple(self._infos[i] for i in self._page_ids(offset)),
            total=len(self._order),
            players_online=self.online,
        )

    def watch(self, conn: Connection, offset: int = 0) -> m.TableList:
        """``conn`` follows the page at ``offset`` from now on; the page as it is."""
        self.unwatch(conn)
        key = (offset, conn.id % COHORTS)
        page = self._pages.get(key)
        if page is None:
            page = self._pages[key] = Page(*key)
            page.sent = {i: self._versions[i] for i in self._page_ids(offset)}
            page.online, page.total = self.online, len(self._order)
            page.counted = trio.current_time()  # the page just sent carries them
        page.watchers.add(conn)
        self._page_of[conn] = page
        return self.page(offset)

    def unwatch(self, conn: Connection) -> None:
        page = self._page_of.pop(conn, None)
        if page is not None:
            page.watchers.discard(conn)
            if not page.watchers:
                del self._pages[page.offset, page.cohort]

    def watching(self, conn: Connection) -> bool:
        return conn in self._page_of

    def chat(self, line: m.Chat, sender_id: int, *, local: bool = True) -> None:
        """A lobby chat line, encoded once, to every watcher who has not muted its sender
        (said on this node: to the other nodes too)."""
        if local and self.on_chat is not None:
            self.on_chat(line, sender_id)
        frame = encode(line)
        for conn in list(self._page_of):
            if sender_id not in conn.session.mutes:
                conn.send_frame(frame)

    # -- the updates -------------------------------------------------------------------
    async def run(self) -> None:
        """Send the coalesced updates: each cohort's turn once every ``interval``, the
        turns spread evenly over it (turns missed by a busy loop are caught up)."""
        step = self.interval / COHORTS
        due, cohort = trio.current_time() + step, 0
        while True:
            await trio.sleep_until(due)
            now = trio.current_time()
            while due <= now:
                self.flush(cohort)
                due, cohort = due + step, (cohort + 1) % COHORTS

    def flush(self, cohort: int | None = None) -> None:
        """What changed since their last update, to the watchers of ``cohort`` (None:
        every cohort), one frame per page."""
        online, total = self.online, len(self._order)
        now = trio.current_time()
        for page in list(self._pages.values()):
            if cohort is not None and page.cohort != cohort:
                continue
            ids = self._page_ids(page.offset)
            current = {i: self._versions[i] for i in ids}
            changed = tuple(self._infos[i] for i in ids if page.sent.get(i) != current[i])
            removed = tuple(i for i in page.sent if i not in current)
            if not changed and not removed:
                counts_changed = page.online != online or page.total != total
                if not counts_changed or now < page.counted + COUNTS_INTERVAL:
                    continue
            page.sent, page.online, page.total, page.counted = current, online, total, now
            frame = encode(
                m.LobbyUpdate(tables=changed, removed=removed, total=total, players_online=online),
                check=False,
            )
            for conn in list(page.watchers):
                conn.send_frame(frame)
