"""Match history: the ``Storage`` methods behind ``list_matches``, ``get_match`` and
``get_hand`` (docs/rules.md §2.10), and the one rule of who may read what
(``may_read``); the hands kept with a recorder (``save_hand``, ``saved_hands``) and the
pruning of the other hands' logs (``prune_hand_logs``, docs/rules.md §2.6).

Everything here reads settled rows only: a ``hand`` row is written by the hand's
settlement, so a hand in play (its actions are in ``match_action``) has no row and
nothing of it can be read. What is read is returned as the protocol's records
(``protocol.messages.MatchList``, ``MatchDetail``, ``HandLog``, ``SavedHands``), which a
handler sends as they are; ``StoredMatch`` and ``StoredHandLog`` carry beside them what
only the server needs (the match's table, the result recorded with the hand).

Rows written before migration 5 are read too: their participants come from
``match_seat`` (copied by migration 6), their standings are a list of points by seat
and their hands name players by lobby seat; ``_standings`` and ``_seat_names`` turn
them into the current form.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from gbmj.economy.stakes import hand_payments
from gbmj.game.personal_walls import NO_DICE
from gbmj.game.wall import commitment_of
from gbmj.replay import ReplayResult
from gbmj_server.storage.engine import Database
from gbmj_server.storage.ledger import LedgerError
from gbmj_server.storage.logs import read_log
from gbmj_server.storage.postgres import retry_conflicts
from protocol import messages as m
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, LeaveReason, MatchEnd, Outcome

PAGE_LIMIT = 50  # matches in one page at most (protocol: list_matches.limit)


class NoSuchHand(LedgerError):
    """No settled hand by that id whose log is kept, or not one the account played."""

    code = "no_such_match"


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A match's detail as the protocol tells it, and the table it was played at (a
    duplicate session's tables keep their hands closed until the last one ends)."""

    detail: m.MatchDetail
    table_id: int | None


@dataclass(frozen=True, slots=True)
class StoredHandLog:
    """A hand's log as the protocol tells it, and the result the server recorded with it
    (the fans a ``hand_log`` leaves out), which the host's export and signature write."""

    log: m.HandLog
    result: ReplayResult


@dataclass(frozen=True, slots=True)
class _Participant:
    n: int
    slot: int
    account_id: int | None
    name: str
    bot: bool
    points: int
    coins: int
    left: str | None


class HistoryMixin:
    """Mixed into ``Storage`` (which provides ``_db``, ``_write`` and, from the ledger,
    ``_take_item``)."""

    _db: Database
    _write: Callable[[], AbstractContextManager[Database]]
    _take_item: Callable[[Database, int, str], None]

    @property
    def engine(self) -> str:  # Storage's: sqlite or postgresql
        raise NotImplementedError

    # -- who may read what ----------------------------------------------------------
    def may_read(self, account_id: int | None, match_id: int) -> bool:
        """docs/rules.md §2.10: a player reads the matches they played (while they run,
        their settled hands); anyone reads a public match once it has ended. An unknown
        match is readable by nobody. A hand in play has no row: nothing of it is read."""
        row = self._db.execute(
            "SELECT public, ended_at IS NOT NULL, EXISTS (SELECT 1 FROM match_player p "
            "WHERE p.match_id = m.id AND p.account_id = ?) FROM match m WHERE m.id = ?",
            (account_id, match_id),
        ).fetchone()
        if row is None:
            return False
        public, ended, played = row
        return bool(played or (public and ended))

    def may_read_hand(self, account_id: int | None, hand_id: int) -> bool:
        """``may_read`` for the match of a settled hand (False for an unknown hand); a
        saved hand (docs/rules.md §2.6) anyone may read who has its id."""
        row = self._db.execute(
            "SELECT match_id, EXISTS (SELECT 1 FROM saved_hand s WHERE s.hand_id = h.id) "
            "FROM hand h WHERE id = ?",
            (hand_id,),
        ).fetchone()
        return row is not None and (bool(row[1]) or self.may_read(account_id, row[0]))

    # -- the recorder ---------------------------------------------------------------
    @retry_conflicts
    def save_hand(self, account_id: int, hand_id: int, item: str | None) -> bool:
        """Keep a settled hand the account played for good, in its saved hands, using one
        ``item`` (the recorder), in one transaction; ``item`` None: the host keeps it for
        the account, played or not, nothing used. True if saved now; False if the
        account had saved it before (nothing used). Refused, nothing changes:
        ``NoSuchHand`` (unknown, its log no longer kept, or a hand the account did not
        play), ``NoSuchItem``."""
        with self._write() as db:
            row = db.execute(
                "SELECT match_id, result, length(event_log) FROM hand WHERE id = ?", (hand_id,)
            ).fetchone()
            if row is None or not row[2]:
                raise NoSuchHand(f"no hand {hand_id} whose log is kept")
            people = self._participants(row[0])
            mine = {p.name for p in people if p.account_id == account_id and not p.bot}
            if item is not None and not mine & set(_seat_names(json.loads(row[1]), people)):
                raise NoSuchHand(f"no hand {hand_id} you played")
            if db.execute(
                "SELECT 1 FROM saved_hand WHERE account_id = ? AND hand_id = ?",
                (account_id, hand_id),
            ).fetchone():
                return False
            if item is not None:
                self._take_item(db, account_id, item)
            db.execute(
                "INSERT INTO saved_hand (account_id, hand_id, saved_at) VALUES (?, ?, ?)",
                (account_id, hand_id, time.time()),
            )
            return True

    def saved_hands(self, account_id: int, offset: int = 0, limit: int = 20) -> m.SavedHands:
        """The hands the account saved, newest first, ``limit`` from ``offset``."""
        if offset < 0 or not 1 <= limit <= PAGE_LIMIT:
            raise ValueError(f"offset must be 0 or more and limit 1 to {PAGE_LIMIT}")
        total = self._db.execute(
            "SELECT count(*) FROM saved_hand WHERE account_id = ?", (account_id,)
        ).fetchone()[0]
        rows = self._db.execute(
            "SELECT h.id, h.number, h.round, h.hand_number, h.result, h.match_id, "
            "m.table_name, s.saved_at FROM saved_hand s JOIN hand h ON h.id = s.hand_id "
            "JOIN match m ON m.id = h.match_id WHERE s.account_id = ? "
            "ORDER BY s.saved_at DESC, s.hand_id DESC LIMIT ? OFFSET ?",
            (account_id, limit, offset),
        ).fetchall()
        return m.SavedHands(
            hands=tuple(
                m.SavedHand(
                    hand=self._hand_summary(r[:5], self._participants(r[5])),
                    match_id=r[5],
                    table_name=r[6],
                    saved_at=int(r[7]),
                )
                for r in rows
            ),
            total=total,
        )

    @retry_conflicts
    def prune_hand_logs(self, played_before: float, batch: int = 500) -> int:
        """Empty the logs of up to ``batch`` hands played before ``played_before`` (a
        ``time.time()``) in ended matches, but not of a saved hand: the hand's row stays
        (its result, the ledger's rows), its replay goes. How many were pruned (fewer
        than ``batch``: none is left). A batch at a time keeps each write short, so the
        tables' settlements are not kept waiting behind a year of hands."""
        with self._write() as db:
            # The walk goes by the index of the logs not pruned yet (hand_log_kept), so a
            # pruning skips what was pruned; SQLite is told to, PostgreSQL finds it.
            index = "INDEXED BY hand_log_kept " if self.engine == "sqlite" else ""
            return db.execute(
                "UPDATE hand SET event_log = ? WHERE id IN (SELECT h.id FROM hand h "
                f"{index}WHERE h.played_at < ? AND length(h.event_log) > 0 "
                "AND NOT EXISTS (SELECT 1 FROM saved_hand s WHERE s.hand_id = h.id) "
                "AND h.match_id IN (SELECT id FROM match WHERE ended_at IS NOT NULL) LIMIT ?)",
                (b"", played_before, batch),
            ).rowcount

    def hand_log_pruned(self, hand_id: int) -> bool:
        """Whether a settled hand's log was pruned (False for an unknown hand)."""
        row = self._db.execute(
            "SELECT length(event_log) FROM hand WHERE id = ?", (hand_id,)
        ).fetchone()
        return row is not None and not row[0]

    # -- the list -------------------------------------------------------------------
    def matches_of(self, account_id: int, offset: int = 0, limit: int = 20) -> m.MatchList:
        """The matches the account held a seat in, newest first, ``limit`` from
        ``offset``, each with the account's rank, points and coins."""
        if offset < 0 or not 1 <= limit <= PAGE_LIMIT:
            raise ValueError(f"offset must be 0 or more and limit 1 to {PAGE_LIMIT}")
        # Both walk the (account_id, match_id) index: newest first is its reverse order.
        total = self._db.execute(
            "SELECT count(DISTINCT match_id) FROM match_player WHERE account_id = ?",
            (account_id,),
        ).fetchone()[0]
        ids = [
            r[0]
            for r in self._db.execute(
                "SELECT DISTINCT match_id FROM match_player WHERE account_id = ? "
                "ORDER BY match_id DESC LIMIT ? OFFSET ?",
                (account_id, limit, offset),
            )
        ]
        summaries = []
        for match_id in ids:
            found = self._summary(match_id, account_id, self._participants(match_id))
            assert found is not None  # a participant's match exists (ON DELETE CASCADE)
            summaries.append(found[0])
        return m.MatchList(matches=tuple(summaries), total=total)

    # -- one match ------------------------------------------------------------------
    def match_detail(self, match_id: int, account_id: int | None = None) -> StoredMatch | None:
        """The match's summary (with ``account_id``'s rank, points and coins if it
        played), its settled hands and, once it has ended, its standings."""
        people = self._participants(match_id)
        found = self._summary(match_id, account_id, people)
        if found is None:
            return None
        summary, standings, table_id, settings = found
        hands = tuple(
            self._hand_summary(r, people)
            for r in self._db.execute(
                "SELECT id, number, round, hand_number, result FROM hand "
                "WHERE match_id = ? ORDER BY number",
                (match_id,),
            )
        )
        detail = m.MatchDetail(
            match=summary,
            stake=int(settings.get("stake") or 0),
            hands=hands,
            standings=None if standings is None else standings[: m.MAX_PARTICIPANTS],
        )
        return StoredMatch(detail, table_id)

    def _summary(
        self, match_id: int, account_id: int | None, people: Sequence[_Participant]
    ) -> tuple[m.MatchSummary, tuple[m.Standing, ...] | None, int | None, dict[str, Any]] | None:
        """The match's summary for ``account_id``, its standings, table and settings."""
        row = self._db.execute(
            "SELECT table_name, started_at, ended_at, end_reason, public, standings, "
            "table_id, settings, (SELECT count(*) FROM hand h WHERE h.match_id = m.id) "
            "FROM match m WHERE id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        name, started, ended, reason, public, raw_standings, table_id, settings, hands = row
        standings = _standings(raw_standings, people)
        rank = points = coins = None
        mine = [p for p in people if account_id is not None and p.account_id == account_id]
        if mine:
            names = {p.name for p in mine}
            held = [s for s in standings or () if s.name in names and not s.bot]
            if held:  # ended: as the standings have it
                rank = min(s.rank for s in held)
                points, coins = sum(s.points for s in held), sum(s.coins for s in held)
            else:  # still running: the totals so far, no rank yet
                points, coins = sum(p.points for p in mine), sum(p.coins for p in mine)
        summary = m.MatchSummary(
            match_id=match_id,
            table_name=name,
            started_at=int(started),
            ended_at=None if ended is None else int(ended),
            reason=None if reason is None else MatchEnd(reason),
            players=tuple(dict.fromkeys(p.name for p in people))[: m.MAX_PARTICIPANTS],
            hands=hands,
            public=bool(public),
            rank=rank,
            points=points,
            coins=coins,
        )
        return summary, standings, table_id, json.loads(settings)

    def _participants(self, match_id: int) -> tuple[_Participant, ...]:
        return tuple(
            _Participant(r[0], r[1], r[2], r[3], r[4] is not None, r[5], r[6], r[7])
            for r in self._db.execute(
                "SELECT n, slot, account_id, name, bot_level, points, coins, left_reason "
                "FROM match_player WHERE match_id = ? ORDER BY n",
                (match_id,),
            )
        )

    def _hand_summary(self, row: Sequence[Any], people: Sequence[_Participant]) -> m.HandSummary:
        hand_id, number, round_, hand_number, raw_result = row
        result = json.loads(raw_result)
        return m.HandSummary(
            hand_id=hand_id,
            number=number,
            round_number=round_,
            hand_number=hand_number,
            outcome=Outcome(result["outcome"]),
            winner=result.get("winner"),
            total=result.get("total", 0),
            points=tuple(result["points"]),
            players=_seat_names(result, people),
        )

    # -- one hand -------------------------------------------------------------------
    def hand_log(self, hand_id: int) -> StoredHandLog | None:
        """A settled hand, complete: its wall, every action with its time, its result
        and, at a stake table, the coins each seat won or lost (from the ledger); None
        for an unknown hand or one whose log was pruned."""
        row = self._db.execute(
            "SELECT h.id, h.match_id, h.number, h.round, h.hand_number, h.result, "
            "h.event_log, m.settings FROM hand h JOIN match m ON m.id = h.match_id "
            "WHERE h.id = ?",
            (hand_id,),
        ).fetchone()
        if row is None or not row[6]:
            return None
        hand_id, match_id, number, round_, hand_number, raw_result, blob, raw_settings = row
        result = json.loads(raw_result)
        log = read_log(bytes(blob))
        hand, times = log["hand"], log["times"]
        wall = hand["wall"]
        actions = []
        escape = None
        for (seat, action), ms in zip(hand["log"], times, strict=True):
            if action["kind"] == "escape":
                escape = seat
            else:
                kind = ActionKind(action["kind"])
                actions.append(m.LoggedAction(seat=seat, kind=kind, tile=action.get("tile"), ms=ms))
        people = self._participants(match_id)
        players = _seat_names(result, people, log.get("players"))
        points = tuple(result["points"])
        stake = int(json.loads(raw_settings).get("stake") or 0)
        salt = wall["salt"]
        # Personal walls (docs/rules.md §1.6): the four walls in seat order, no dice.
        order = [t for w in wall["walls"] for t in w] if "walls" in wall else wall["order"]
        dice = wall.get("dice", NO_DICE)
        coins = self._hand_coins(hand_id, result, players, people, stake) if stake else None
        told = m.HandLog(
            hand_id=hand_id,
            match_id=match_id,
            number=number,
            round_number=round_,
            hand_number=hand_number,
            prevailing_wind=hand["prevailing_wind"],
            dealer=wall["dealer"],
            dice=tuple((a, b) for a, b in dice),
            wall_order=tuple(order),
            salt=salt,
            # The commitment announced is the hash of the wall kept (rows of the first
            # format kept it beside the result).
            commitment=result.get("commitment")
            or commitment_of(
                order, bytes.fromhex(salt), wall.get("match_id", 0), wall.get("number", 0)
            ),
            players=players,
            actions=tuple(actions),
            escape=escape,
            points=points,
            coins=coins,
        )
        win_tile = result.get("win_tile")
        recorded = ReplayResult(
            outcome=Outcome(result["outcome"]),
            winner=result.get("winner"),
            from_seat=result.get("from_seat"),
            win_tile=None if win_tile is None else Tile(win_tile),
            escaper=escape,
            fans=tuple((f, c) for f, c in result.get("fans", ())),
            total=result.get("total", 0),
            points=points,
            coins=coins,
        )
        return StoredHandLog(told, recorded)

    def _hand_coins(
        self,
        hand_id: int,
        result: Mapping[str, Any],
        players: Sequence[str],
        people: Sequence[_Participant],
        stake: int,
    ) -> tuple[int, ...]:
        """What each seat won or lost in the hand's ledger rows. A player's seat: the
        transfers of its wallet. A bot plays for the house (docs/rules.md §2.5), whose
        wallet the bots share, so a bot's share is the payment the rules ask of it (the
        house pays in full) or, for a winning bot, what the others paid."""
        accounts = {p.name: p.account_id for p in people if not p.bot}
        net: dict[int, int] = {}
        for source, target, amount in self._db.execute(
            "SELECT fw.account_id, tw.account_id, t.amount FROM coin_transfer t "
            "JOIN wallet fw ON fw.id = t.from_wallet JOIN wallet tw ON tw.id = t.to_wallet "
            "WHERE t.hand_id = ?",
            (hand_id,),
        ):
            if source is not None:
                net[source] = net.get(source, 0) - amount
            if target is not None:
                net[target] = net.get(target, 0) + amount
        coins = [0, 0, 0, 0]
        bots = []
        for seat, name in enumerate(players):
            account = accounts.get(name)
            if account is None:
                bots.append(seat)
            else:
                coins[seat] = net.get(account, 0)
        owed = hand_payments(result["points"], stake, result.get("winner"), result.get("escaper"))
        for p in owed:
            if p.payer in bots:
                coins[p.payer] -= p.amount
        winner = result.get("winner")
        if winner in bots:
            coins[winner] = -sum(c for s, c in enumerate(coins) if s != winner)
        return tuple(coins)


def _standings(raw: str | None, people: Sequence[_Participant]) -> tuple[m.Standing, ...] | None:
    """The standings kept with the match's end: ``Standing`` maps, or (rows of the first
    format) a list of points by lobby seat, ranked here."""
    if raw is None:
        return None
    data = json.loads(raw)
    if all(isinstance(x, int) for x in data):
        holders = {p.slot: p for p in people}
        return tuple(
            m.Standing(
                name=holders[slot].name if slot in holders else f"seat {slot}",
                bot=slot in holders and holders[slot].bot,
                seat=slot,
                rank=1 + sum(1 for q in data if q > points),
                points=points,
                coins=holders[slot].coins if slot in holders else 0,
            )
            for slot, points in sorted(enumerate(data), key=lambda sp: -sp[1])
        )
    return tuple(
        m.Standing(
            name=s["name"],
            bot=bool(s["bot"]),
            seat=s.get("seat"),
            rank=s["rank"],
            points=s["points"],
            coins=s.get("coins", 0),
            left=None if s.get("left") is None else LeaveReason(s["left"]),
        )
        for s in data
    )


def _seat_names(
    result: Mapping[str, Any],
    people: Sequence[_Participant],
    logged: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """Who played seats 0-3 of a hand: the names its result (or its log) keeps, or, in
    rows of the first format, the lobby seats its result names, looked up among the
    participants."""
    for names in (result.get("players"), logged):
        if names and len(names) == 4 and all(isinstance(x, str) and x for x in names):
            return tuple(names)
    by_slot = {p.slot: p.name for p in people}
    seats = result.get("players") or ()
    return tuple(
        by_slot.get(seats[s], f"seat {s}") if s < len(seats) else f"seat {s}" for s in range(4)
    )
