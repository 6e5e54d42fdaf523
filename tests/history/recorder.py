"""Matches played by bots through the engine and recorded the way the server's tables
record them: ``start_match`` with the first four participants, ``journal`` for every
step of the hand in play, ``settle_hand`` with the result, the log, the payments and the
participants' points, ``end_match`` with the standings (``Standing`` wire maps).

The tests of the history and the replay tools read what this writes; ``bench/history.py``
uses it to fill its database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gbmj.bots import make_bot
from gbmj.economy.stakes import hand_payments
from gbmj.game.duplicate import Deal, DuplicateMatch
from gbmj.game.hand_state import HandState
from gbmj.game.match import Match
from gbmj.game.views import make_view
from gbmj_server.storage import Payment, Storage, hash_password
from gbmj_server.storage.logs import write_log
from gbmj_server.storage.matches import ActionRow, PlayerJoined, PlayerLeft

MS_PER_ACTION = 700
PASSWORD = "history-pw-1"  # every player account's


@dataclass(frozen=True, slots=True)
class Sitter:
    """Who sits down: an account (``account_id``) or a bot (``bot_level``)."""

    name: str
    account_id: int | None = None
    bot_level: str | None = None
    guest: bool = False


@dataclass(slots=True)
class RecordedMatch:
    match_id: int
    hand_ids: list[int] = field(default_factory=list)
    states: list[HandState] = field(default_factory=list)  # each hand as the live game ended it
    names: list[list[str]] = field(default_factory=list)  # who sat at seats 0-3, each hand
    scores: list[list[int]] = field(default_factory=list)  # match points by seat after each
    coins: list[list[int]] = field(default_factory=list)  # coins each seat won, each hand


def sitters(store: Storage, *names: str) -> list[Sitter]:
    """Player accounts for ``names`` (made if missing), then bots up to four seats."""
    out = []
    for name in names:
        account = store.account_by_name(name) or store.create_account(name, hash_password(PASSWORD))
        out.append(Sitter(name, account.id))
    for i in range(len(out), 4):
        out.append(Sitter(f"bot-{i}", bot_level="normal"))
    return out


def record_match(
    store: Storage,
    seated: Sequence[Sitter],
    seed: bytes,
    *,
    rounds: int = 1,
    stake: int = 0,
    public: bool | None = None,
    table_name: str = "东风局",
    table_id: int = 1,
    escape: tuple[int, int, int] | None = None,  # (hand number, after this many actions, player)
    stop_after: int | None = None,  # leave the match running after this many hands
    hands: int | None = None,  # play only this many hands, then end the match
    choices: Sequence[HandState] = (),  # replay these hands' actions instead of asking bots
    write_ahead: bool = True,  # journal every step (the history reads settled rows only)
    deals: Sequence[Deal] = (),  # a duplicate match of these deals, on personal walls
) -> RecordedMatch:
    """Play a match with a bot choosing for every seat and record it; returns its ids and
    every hand's final state. With ``choices`` (the states of a match of the same seed
    recorded before), the same actions are played again, without the bots' thinking."""
    public = stake == 0 if public is None else public
    settings = {
        "name": table_name,
        "stake": stake,
        "rounds": rounds,
        "bots_allowed": True,
        "public_history": public,
        "timers": {"on": True, "first_discard": 20, "turn": 15, "claim_window": 8},
    }
    joined = [
        PlayerJoined(0, n, n, s.account_id, s.name, s.guest, s.bot_level)
        for n, s in enumerate(seated)
    ]
    match_id = store.start_match(
        table_id, table_name, settings, seed, seated[0].name, public, "", joined
    )
    holders = list(range(4))  # the participant n holding each lobby seat (player 0-3)
    people = list(seated)  # participant n -> who
    points_of = [0] * len(people)
    coins_of = [0] * len(people)
    left: dict[int, str] = {}
    bots = [make_bot("normal", 1000 + p) for p in range(4)]
    match = DuplicateMatch(deals, 0, match_id) if deals else Match(seed, rounds, match_id)
    record = RecordedMatch(match_id)
    seq = 0
    number = 0
    while not match.finished:
        if stop_after is not None and number == stop_after:
            return record  # the match goes on: nothing more is settled
        if hands is not None and number == hands:
            break
        number += 1
        state = match.start_hand()
        seq += 1
        journal = store.journal if write_ahead else _skip
        journal([ActionRow(match_id, number, 0, state.dealer, "deal", None, 0, seq)])
        names = [people[holders[match.player_at(s)]].name for s in range(4)]
        times: list[int] = []
        replayed = iter(choices[number - 1].log) if choices else None
        while not state.ended:
            chosen = None if replayed is None else next(replayed)
            if (escape is not None and escape[:2] == (number, len(state.log))) or (
                chosen is not None and chosen[1] is None
            ):
                player = match.player_at(chosen[0]) if chosen else escape[2]
                match.escape(player)
                seat = match.seat_of(player)
                seq += 1
                times.append(MS_PER_ACTION * (len(times) + 1))
                journal(
                    [ActionRow(match_id, number, len(times), seat, "escape", None, times[-1], seq)]
                )
                break
            if chosen is not None:
                seat, action = chosen
                assert action is not None
            else:
                seat = state.to_act[0]
                view = make_view(state, seat)
                action = bots[match.player_at(seat)].choose(view, view.legal_actions)
            state.apply(seat, action)
            seq += 1
            times.append(MS_PER_ACTION * (len(times) + 1))
            journal(
                [
                    ActionRow(
                        match_id,
                        number,
                        len(times),
                        seat,
                        action.kind.value,
                        None if action.tile is None else int(action.tile),
                        times[-1],
                        seq,
                    )
                ]
            )
        match.finish_hand()
        result = state.result
        assert result is not None
        # The seats' participants this hand (an escaper still pays for the hand).
        by_seat = [holders[p] for p in match.history[-1].players]
        owed = hand_payments(result.points, stake, result.winner, result.escaper)
        payments = [
            Payment(
                people[by_seat[p.payer]].account_id,
                None if p.payee is None else people[by_seat[p.payee]].account_id,
                p.amount,
                "escape" if p.payee is None else "hand",
                by_seat[p.payer],
                None if p.payee is None else by_seat[p.payee],
            )
            for p in owed
        ]
        score = result.score
        summary = {
            "outcome": result.outcome.value,
            "winner": result.winner,
            "from_seat": result.from_seat if result.winner is not None else None,
            "win_tile": None if result.win_tile is None else int(result.win_tile),
            "escaper": result.escaper,
            "fans": [[fc.fan.id, fc.count] for fc in score.fans] if score else [],
            "total": score.total if score else 0,
            "points": list(result.points),
            "players": names,
            "seq": seq,
        }
        settled = store.settle_hand(
            match_id,
            number,
            state.round_number,
            state.hand_number,
            summary,
            write_log(state.to_dict(), times, names),
            payments,
            [
                (people[n].account_id, pts)
                for n, pts in zip(by_seat, result.points, strict=True)
                if people[n].account_id is not None and not people[n].guest and pts
            ],
            None,
            [(n, pts) for n, pts in zip(by_seat, result.points, strict=True)],
        )
        moved_by_seat = [0, 0, 0, 0]
        for p, moved in zip(owed, settled.moved, strict=True):
            moved_by_seat[p.payer] -= moved
            if p.payee is not None:
                moved_by_seat[p.payee] += moved
        for seat, delta in enumerate(moved_by_seat):
            coins_of[by_seat[seat]] += delta
        record.coins.append(moved_by_seat)
        for n, pts in zip(by_seat, result.points, strict=True):
            points_of[n] += pts
        record.hand_ids.append(settled.hand_id)
        record.states.append(state)
        record.names.append(names)
        record.scores.append([points_of[n] for n in by_seat])
        if result.escaper is not None:
            # A bot takes the escaper's seat for the rest of the match.
            player = match.history[-1].players[result.escaper]
            gone = holders[player]
            left[gone] = "left"
            bot = Sitter(f"bot-{len(people)}", bot_level="normal")
            people.append(bot)
            points_of.append(0)
            coins_of.append(0)
            holders[player] = len(people) - 1
            store.journal(
                [
                    PlayerLeft(match_id, gone, "left"),
                    PlayerJoined(
                        match_id, len(people) - 1, player, None, bot.name, False, bot.bot_level
                    ),
                ]
            )
    store.end_match(match_id, "finished", standings(people, holders, points_of, coins_of, left))
    return record


def _skip(entries: object) -> None:
    """No write-ahead journal (a benchmark filling a database)."""


def standings(
    people: Sequence[Sitter],
    holders: Sequence[int],
    points: Sequence[int],
    coins: Sequence[int],
    left: dict[int, str],
) -> list[dict[str, object]]:
    """Every participant by rank: those who stayed by points, then those who left."""
    order = sorted(range(len(people)), key=lambda n: (n in left, -points[n], n))
    out: list[dict[str, object]] = []
    for rank, n in enumerate(order, 1):
        entry: dict[str, object] = {
            "name": people[n].name,
            "bot": people[n].bot_level is not None,
            "rank": rank,
            "points": points[n],
            "coins": coins[n],
        }
        if n in left:
            entry["left"] = left[n]
        else:
            entry["seat"] = holders.index(n)
        out.append(entry)
    return out
