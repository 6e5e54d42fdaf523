"""One hand of Chinese Official Mahjong as a pure, deterministic state machine.

Like a chess board: ``state.to_act`` names the seats that must act, ``state.timer`` the
timer class of that decision, ``state.legal_actions(seat)`` lists a seat's choices and
``state.apply(seat, action)`` plays one, returning the events it caused. An action that
is not listed raises ``IllegalAction`` and changes nothing. The state is mutable (no
copies per step); ``HandState.replay`` rebuilds it from the wall and the action log, and
``to_dict``/``from_dict`` carry it as plain data.

Flow (docs/rules.md §1.2, §1.3): the deal with flower replacement; turns of draw then discard (or a
self-drawn win, a concealed or added kong); after a discard a claim window where every
seat with a claim answers; claims resolve by priority (win > pung/kong > chow, several
wins: the first seat counter-clockwise from the discarder) as soon as the outcome is
certain. An added kong opens a window for robbing the kong. The hand ends with a win, an
exhaustive draw or an escape.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from itertools import chain, compress
from operator import getitem
from typing import TYPE_CHECKING, NamedTuple

from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import WINDS, Tile
from protocol.vocabulary import ActionKind, MeldKind, Outcome, Phase, TimerClass

from ..rules.errors import HandError
from ..rules.hand import Meld
from ..rules.scoring import Score, WinContext
from . import actions as A
from . import events as E
from .actions import from_plain, to_plain
from .memo import (
    ADDED_KONGS,
    CHOWS_WITH,
    CONCEALED_KONGS,
    DISCARD_EVENTS,
    DISCARDS,
    DRAW_EVENTS,
    RUNS,
    HandMemo,
    complete,
)
from .personal_walls import PersonalWalls
from .settlement import HandOutcome, escape_points, score_win, win_points
from .wall import DEAL_SIZE, WALL_SIZE, Wall, deal_positions

if TYPE_CHECKING:
    from .events import Plain


class TurnKind(StrEnum):
    DRAW = "draw"  # after a draw (or the deal): every turn action
    KONG = "kong"  # after a kong's replacement tile: a self-drawn win is 杠上开花
    CLAIM = "claim"  # after a chow or pung: discard only


class SeatData(NamedTuple):
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[Tile, ...]
    discards: tuple[Tile, ...]


def _new_seat_data(fields: tuple[object, ...]) -> SeatData:
    """SeatData from its four fields (without NamedTuple's keyword handling: hot path)."""
    return tuple.__new__(SeatData, fields)


class IllegalAction(HandError):
    """An action refused: ``code`` is ``hand_over``, ``not_your_turn`` or ``illegal_action``."""


class HandState:
    """One hand: built from a ``Wall`` (whose ``dealer`` deals) or from ``PersonalWalls``
    (each seat deals and draws from its own); the deal happens at once."""

    def __init__(
        self,
        wall: Wall | PersonalWalls,
        *,
        prevailing_wind: Tile = Tile.E,
        round_number: int = 1,
        hand_number: int = 1,
    ) -> None:
        self.wall = wall
        self.dealer = wall.dealer
        self.prevailing_wind = Tile(prevailing_wind)
        self.round_number = round_number
        self.hand_number = hand_number
        self.seat_winds = tuple(WINDS[(s - self.dealer) % 4] for s in range(4))
        # The walls drawn from, each with its next tile at the front and its replacement
        # end at the back, and which wall each seat draws from.
        self._seqs: tuple[tuple[Tile, ...], ...]
        if isinstance(wall, PersonalWalls):
            self._seqs = wall.walls
            self._front = [wall.deal_size(s) for s in range(4)]
            self._back = [len(w) for w in wall.walls]
            self._wall_of: tuple[int, ...] = (0, 1, 2, 3)
        else:
            self._seqs = (wall.draw_sequence(),)
            self._front = [DEAL_SIZE]
            self._back = [WALL_SIZE]
            self._wall_of = (0, 0, 0, 0)
        self.personal_walls = isinstance(wall, PersonalWalls)
        self._counts = [[0] * 34 for _ in range(4)]
        self._melds: list[list[Meld]] = [[] for _ in range(4)]
        self._flowers: list[list[Tile]] = [[] for _ in range(4)]
        self._discards: list[list[Tile]] = [[] for _ in range(4)]
        # Discards another seat claimed (a meld or a win): where each lay in the pool as
        # played, and the tile; a view shows them marked where they were.
        self._claimed: list[list[tuple[int, Tile]]] = [[] for _ in range(4)]
        self._last_drawn: list[Tile | None] = [None] * 4
        self.discard_count = 0
        self.phase = Phase.TURN
        self.turn_seat = self.dealer
        self.turn_kind = TurnKind.DRAW
        self._offer: tuple[int, Tile, bool] | None = None  # seat, tile, robbing a kong
        self._options: dict[int, tuple[ActionChoice, ...]] = {}
        self._answers: dict[int, ActionChoice] = {}
        self.result: HandOutcome | None = None
        self.events: list[m.EventBody] = []
        self.log: list[tuple[int, ActionChoice | None]] = []  # (seat, action); None = escape
        self.version = 0  # bumped by every step
        self._memo: HandMemo[SeatData] = HandMemo()  # speed only: the rules never read it
        self._deal()

    # -- the deal ---------------------------------------------------------------------
    def _deal(self) -> None:
        w = self.wall
        ev = self.events
        ev.append(
            m.HandStart(
                round_number=self.round_number,
                hand_number=self.hand_number,
                dealer=self.dealer,
                seat_winds=self.seat_winds,
                prevailing_wind=self.prevailing_wind,
                dice=w.dice,
                second_roller=w.second_roller,
                break_stack=w.break_stack,
                commitment=w.commitment,
            )
        )
        pending: list[list[Tile]] = [[] for _ in range(4)]
        for offset in range(4):
            seat = (self.dealer + offset) % 4
            if self.personal_walls:
                tiles = self._seqs[seat][: self._front[seat]]
            else:
                tiles = tuple(self._seqs[0][p] for p in deal_positions(offset))
            ev.append(m.Deal(seat=seat, count=len(tiles), tiles=tiles))
            for t in tiles:
                if t >= 34:
                    pending[seat].append(t)
                else:
                    self._counts[seat][t] += 1
                    self._last_drawn[seat] = t
        # Flower replacement: dealer first, then the others in turn, until none is left.
        while any(pending):
            for offset in range(4):
                seat = (self.dealer + offset) % 4
                flowers, pending[seat] = pending[seat], []
                for f in flowers:
                    self._flowers[seat].append(f)
                    ev.append(m.Flower(seat=seat, tile=f))
                    self._back[0] -= 1  # flowers come only with the shared wall
                    t = self._seqs[0][self._back[0]]
                    ev.append(DRAW_EVENTS[seat][t][True])
                    if t >= 34:
                        pending[seat].append(t)
                    else:
                        self._counts[seat][t] += 1
                        self._last_drawn[seat] = t

    # -- what the server asks ---------------------------------------------------------
    @property
    def ended(self) -> bool:
        return self.phase is Phase.ENDED

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that must act now (in claim priority order during a claim window)."""
        if self.phase is Phase.TURN:
            return (self.turn_seat,)
        if self.phase is Phase.CLAIM:
            return tuple(s for s in self._options if s not in self._answers)
        return ()

    @property
    def timer(self) -> TimerClass | None:
        """Which clock applies to the seats in ``to_act`` (None when the hand is over)."""
        if self.phase is Phase.TURN:
            return TimerClass.FIRST_DISCARD if self.discard_count == 0 else TimerClass.TURN
        if self.phase is Phase.CLAIM:
            return TimerClass.CLAIM_WINDOW
        return None

    @property
    def wall_remaining(self) -> int:
        """Tiles left to draw (with personal walls, in all four together)."""
        return sum(self._back) - sum(self._front)

    def wall_empty(self, seat: int) -> bool:
        """Whether the wall ``seat`` draws from has no tile left."""
        w = self._wall_of[seat]
        return self._front[w] >= self._back[w]

    @property
    def offer(self) -> tuple[int, Tile, bool] | None:
        """During a claim window: (seat, tile, robbing a kong)."""
        return self._offer if self.phase is Phase.CLAIM else None

    def seat_rev(self, seat: int) -> int:
        """Changes whenever the seat's tiles (hand, melds, flowers, pool) change."""
        return self._memo.rev[seat]

    def seat_data(self, seat: int) -> SeatData:
        """The seat's tiles as immutable values, rebuilt only after they change."""
        memo = self._memo
        cached = memo.seat_data[seat]
        rev = memo.rev[seat]
        if cached is not None and cached[0] == rev:
            return cached[1]
        data = _new_seat_data(
            (
                tuple(chain.from_iterable(map(getitem, RUNS, self._counts[seat]))),
                tuple(self._melds[seat]),
                tuple(self._flowers[seat]),
                tuple(self._discards[seat]),
            )
        )
        memo.seat_data[seat] = (rev, data)
        return data

    def concealed(self, seat: int) -> tuple[Tile, ...]:
        """The seat's concealed tiles, sorted."""
        return self.seat_data(seat).concealed

    def concealed_count(self, seat: int) -> int:
        return len(self.seat_data(seat).concealed)

    def melds(self, seat: int) -> tuple[Meld, ...]:
        return self.seat_data(seat).melds

    def flowers(self, seat: int) -> tuple[Tile, ...]:
        return self.seat_data(seat).flowers

    def discards(self, seat: int) -> tuple[Tile, ...]:
        """The seat's discard pool (a claimed discard has moved into the claimant's meld)."""
        return self.seat_data(seat).discards

    def last_drawn(self, seat: int) -> Tile | None:
        """The tile ``seat`` just drew, while it is that seat's turn after a draw."""
        if self.phase is not Phase.TURN or seat != self.turn_seat:
            return None
        return None if self.turn_kind is TurnKind.CLAIM else self._last_drawn[seat]

    def legal_actions(self, seat: int) -> tuple[ActionChoice, ...]:
        """Everything ``seat`` may do now; empty unless the seat is in ``to_act``."""
        if self.phase is Phase.TURN:
            if seat != self.turn_seat:
                return ()
            memo = self._memo
            if memo.turn_actions is None:
                memo.turn_actions = self._turn_actions(seat)
            return memo.turn_actions
        if self.phase is Phase.CLAIM and seat not in self._answers:
            return self._options.get(seat, ())
        return ()

    # -- playing ----------------------------------------------------------------------
    def apply(self, seat: int, action: ActionChoice) -> list[m.EventBody]:
        """Play ``action`` for ``seat``; returns the events. Refuses anything not legal."""
        phase = self.phase
        if phase is Phase.ENDED:
            raise IllegalAction("hand_over", "the hand is over")
        # seat in to_act, spelt out per phase (this runs on every step)
        if phase is Phase.TURN:
            acting = seat == self.turn_seat
        else:
            acting = seat in self._options and seat not in self._answers
        if not acting:
            raise IllegalAction("not_your_turn", f"seat {seat} has nothing to decide now")
        legal = self.legal_actions(seat)
        for a in legal:  # identity first: listed actions are shared values (actions.py)
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalAction("illegal_action", f"seat {seat} may not {action} now")
        start = len(self.events)
        self.version += 1
        self.log.append((seat, action))
        if phase is Phase.TURN:
            self._apply_turn(seat, action)
        else:
            self._answers[seat] = action
            self._resolve()
        return self.events[start:]

    def timeout(self, seat: int) -> list[m.EventBody]:
        """The default action of docs/rules.md §2.3 for ``seat``: declare a valid win, else
        discard the drawn tile (the rightmost tile after a chow or pung), else pass."""
        return self.apply(seat, self.default_action(seat))

    def default_action(self, seat: int) -> ActionChoice:
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction("not_your_turn", f"seat {seat} has nothing to decide now")
        if A.WIN in legal:
            return A.WIN
        if self.phase is Phase.CLAIM:
            return A.PASS
        drawn = self._last_drawn[seat]
        if self.turn_kind is not TurnKind.CLAIM and drawn is not None and self._counts[seat][drawn]:
            return DISCARDS[drawn]
        c = self._counts[seat]
        return DISCARDS[max(t for t in range(34) if c[t])]

    def escape(self, seat: int) -> list[m.EventBody]:
        """``seat`` leaves the match on purpose (docs/rules.md §2.4): the hand ends at once."""
        if self.phase is Phase.ENDED:
            raise IllegalAction("hand_over", "the hand is over")
        start = len(self.events)
        self.version += 1
        self.log.append((seat, None))
        offer = self.offer
        if offer is not None and offer[2]:  # an added kong left unresolved: it never happened
            self._counts[offer[0]][offer[1]] += 1
            self._memo.rev[offer[0]] += 1
        self.events.append(m.Escape(seat=seat))
        self._end(HandOutcome(Outcome.ESCAPE, escape_points(seat), escaper=seat))
        return self.events[start:]

    # -- turns ------------------------------------------------------------------------
    def _turn_actions(self, seat: int) -> tuple[ActionChoice, ...]:
        c = self._counts[seat]
        out: list[ActionChoice] = []
        if self.turn_kind is not TurnKind.CLAIM:
            if self._self_drawn_score(seat) is not None:
                out.append(A.WIN)
            if not self.wall_empty(seat):  # a kong needs a replacement tile
                if 4 in c:
                    out.extend(CONCEALED_KONGS[t] for t in range(34) if c[t] == 4)
                out.extend(
                    ADDED_KONGS[meld.tile]
                    for meld in self._melds[seat]
                    if meld.kind is MeldKind.PUNG and c[meld.tile]
                )
        out.extend(compress(DISCARDS, c))
        return tuple(out)

    def _apply_turn(self, seat: int, action: ActionChoice) -> None:
        kind = action.kind
        c = self._counts[seat]
        self._memo.rev[seat] += 1
        ev = self.events
        if kind is ActionKind.DISCARD:
            t = A.tile_of(action)
            c[t] -= 1
            self._discards[seat].append(t)
            self.discard_count += 1
            ev.append(DISCARD_EVENTS[seat][t])
            self._open_claims(seat, t)
        elif kind is ActionKind.WIN:
            score = self._self_drawn_score(seat)
            drawn = self._last_drawn[seat]
            assert score is not None and drawn is not None  # a legal self-drawn win
            self._win(seat, None, drawn, score)
        elif kind is ActionKind.CONCEALED_KONG:
            t = A.tile_of(action)
            c[t] -= 4
            self._melds[seat].append(Meld(MeldKind.KONG, t, concealed=True))
            ev.append(m.ConcealedKong(seat=seat, tile=t))
            self._draw(seat, replacement=True, after_kong=True)
        else:  # added kong: the others may rob it first
            t = A.tile_of(action)
            c[t] -= 1
            ev.append(m.AddedKong(seat=seat, tile=t))
            self._open_rob(seat, t)

    def _start_turn(self, seat: int, kind: TurnKind) -> None:
        self.phase = Phase.TURN
        self.turn_seat = seat
        self.turn_kind = kind
        self._memo.turn_actions = None
        self._offer = None
        self._options = {}
        self._answers = {}

    def _draw(self, seat: int, replacement: bool, after_kong: bool = False) -> None:
        """Draw for ``seat`` (flowers are set aside and replaced at once), then its turn."""
        ev = self.events
        w = self._wall_of[seat]
        seq, front, back = self._seqs[w], self._front, self._back
        while True:
            if front[w] >= back[w]:
                self._exhaustive_draw()
                return
            if replacement and not self.personal_walls:
                back[w] -= 1
                t = seq[back[w]]
            else:  # a personal wall gives replacements from its front too (§1.6)
                t = seq[front[w]]
                front[w] += 1
            ev.append(DRAW_EVENTS[seat][t][replacement])
            if t < 34:
                break
            self._flowers[seat].append(t)
            self._memo.rev[seat] += 1
            ev.append(m.Flower(seat=seat, tile=t))
            replacement = True
        self._counts[seat][t] += 1
        self._memo.rev[seat] += 1
        self._last_drawn[seat] = t
        self._start_turn(seat, TurnKind.KONG if after_kong else TurnKind.DRAW)

    # -- claims -----------------------------------------------------------------------
    def _open_claims(self, discarder: int, t: Tile) -> None:
        # The last discard, after which the seat due to draw has no tile: only a win may
        # claim it.
        last = self.wall_empty((discarder + 1) % 4)
        options: dict[int, tuple[ActionChoice, ...]] = {}
        memo = self._memo
        memo.wins = {}
        for i in (1, 2, 3):
            s = (discarder + i) % 4
            c = self._counts[s]
            opts: list[ActionChoice] = []
            score = None
            if memo.may_be_ready(s, c, len(self._melds[s])):
                c[t] += 1
                score = self._judge(s, t, False, False, last)
                c[t] -= 1
            if score is not None:
                self._memo.wins[s] = score
                opts.append(A.WIN)
            if not last:
                n = c[t]
                if n >= 2:
                    opts.append(A.PUNG)
                    if n == 3 and not self.wall_empty(s):  # its replacement
                        opts.append(A.EXPOSED_KONG)
                if i == 1:
                    for chow, x, y in CHOWS_WITH[t]:
                        if c[x] and c[y]:
                            opts.append(chow)
            if opts:
                opts.append(A.PASS)
                options[s] = tuple(opts)
        self._offer = (discarder, t, False)
        if options:
            self.phase = Phase.CLAIM
            self._options = options
            self._answers = {}
        else:
            self._after_discard(discarder)

    def _open_rob(self, adder: int, t: Tile) -> None:
        options: dict[int, tuple[ActionChoice, ...]] = {}
        memo = self._memo
        memo.wins = {}
        for i in (1, 2, 3):
            s = (adder + i) % 4
            c = self._counts[s]
            if not memo.may_be_ready(s, c, len(self._melds[s])):
                continue
            c[t] += 1
            score = self._judge(s, t, False, True, False)
            c[t] -= 1
            if score is not None:
                self._memo.wins[s] = score
                options[s] = (A.WIN, A.PASS)
        self._offer = (adder, t, True)
        if options:
            self.phase = Phase.CLAIM
            self._options = options
            self._answers = {}
        else:
            self._complete_added_kong()

    def _resolve(self) -> None:
        """Settle the claim window as soon as its outcome is certain."""
        assert self._offer is not None  # only a claim window is resolved
        d, t, rob = self._offer
        order = [(d + i) % 4 for i in (1, 2, 3)]
        options, answers = self._options, self._answers
        for s in order:  # wins first, the first seat counter-clockwise wins
            if A.WIN in options.get(s, ()):
                a = answers.get(s)
                if a is None:
                    return
                if a.kind is ActionKind.WIN:
                    if not rob:
                        self._take_discard(d)
                    self._counts[s][t] += 1
                    self._memo.rev[s] += 1
                    self._memo.rev[d] += 1
                    self._win(s, d, t, self._memo.wins[s])
                    return
        if rob:
            self._complete_added_kong()
            return
        for s in order:  # pung or kong: at most one seat can hold two of the tile
            opts = options.get(s, ())
            if A.PUNG in opts or A.EXPOSED_KONG in opts:
                a = answers.get(s)
                if a is None:
                    return
                if a.kind is ActionKind.PUNG or a.kind is ActionKind.EXPOSED_KONG:
                    self._claim(s, d, t, a)
                    return
        left = order[0]
        if any(a.kind is ActionKind.CHOW for a in options.get(left, ())):
            a = answers.get(left)
            if a is None:
                return
            if a.kind is ActionKind.CHOW:
                self._claim(left, d, t, a)
                return
        self._after_discard(d)

    def _take_discard(self, d: int) -> None:
        """The last discard of seat ``d`` leaves its pool for another seat's hand."""
        pool, claimed = self._discards[d], self._claimed[d]
        claimed.append((len(pool) + len(claimed) - 1, pool.pop()))

    def claimed(self, seat: int) -> tuple[tuple[int, Tile], ...]:
        """The seat's discards other seats claimed: (place in the pool as played, tile)."""
        return tuple(self._claimed[seat])

    def _claim(self, seat: int, d: int, t: Tile, action: ActionChoice) -> None:
        self._take_discard(d)
        c = self._counts[seat]
        self._memo.rev[seat] += 1
        self._memo.rev[d] += 1
        rel = (seat - d) % 4
        ev = self.events
        kind = action.kind
        if kind is ActionKind.CHOW:
            lo = A.tile_of(action)
            meld = Meld(MeldKind.CHOW, lo, claimed_from=rel, claimed_tile=t)
            for x in (lo, lo + 1, lo + 2):
                if x != t:
                    c[x] -= 1
            self._melds[seat].append(meld)
            ev.append(m.Chow(seat=seat, tiles=meld.tiles, claimed_tile=t, from_seat=d))
            self._start_turn(seat, TurnKind.CLAIM)
        elif kind is ActionKind.PUNG:
            meld = Meld(MeldKind.PUNG, t, claimed_from=rel, claimed_tile=t)
            c[t] -= 2
            self._melds[seat].append(meld)
            ev.append(m.Pung(seat=seat, tiles=meld.tiles, claimed_tile=t, from_seat=d))
            self._start_turn(seat, TurnKind.CLAIM)
        else:
            meld = Meld(MeldKind.KONG, t, claimed_from=rel, claimed_tile=t)
            c[t] -= 3
            self._melds[seat].append(meld)
            ev.append(m.ExposedKong(seat=seat, tiles=meld.tiles, claimed_tile=t, from_seat=d))
            self._draw(seat, replacement=True, after_kong=True)

    def _complete_added_kong(self) -> None:
        assert self._offer is not None  # only an offered added kong is completed
        seat, t, _ = self._offer
        melds = self._melds[seat]
        self._memo.rev[seat] += 1
        for i, pung in enumerate(melds):
            if pung.kind is MeldKind.PUNG and pung.tile == t:
                melds[i] = Meld(
                    MeldKind.KONG,
                    t,
                    claimed_from=pung.claimed_from,
                    claimed_tile=pung.claimed_tile,
                    added=True,
                )
                break
        self._draw(seat, replacement=True, after_kong=True)

    def _after_discard(self, discarder: int) -> None:
        if self.wall_empty((discarder + 1) % 4):
            self._exhaustive_draw()
        else:
            self._draw((discarder + 1) % 4, replacement=False)

    # -- winning ----------------------------------------------------------------------
    def _context(
        self, seat: int, win_tile: Tile, self_drawn: bool, kong: bool, last: bool
    ) -> WinContext:
        return WinContext(
            win_tile=Tile(win_tile),
            self_drawn=self_drawn,
            # a discard on offer is still in its pool: it is the winning tile, not a seen copy
            fourth_tile=self._visible(win_tile) - (not self_drawn and not kong) == 3,
            kong_related=kong,
            last_tile=last,
            seat_wind=self.seat_winds[seat],
            prevailing_wind=self.prevailing_wind,
            flowers=len(self._flowers[seat]),
        )

    def _visible(self, tile: Tile) -> int:
        """Copies of ``tile`` on the table (和绝张, docs/rules.md §3.10): in every discard pool and
        every exposed meld.

        The winner's own concealed tiles do not count: the calculator refuses 和绝张 for
        a hand that holds a copy, since then three others cannot all be visible.
        """
        n = 0
        for s in range(4):
            n += self._discards[s].count(tile)
            for meld in self._melds[s]:
                if meld.concealed:
                    continue
                if meld.kind is MeldKind.CHOW:
                    n += meld.tile <= tile <= meld.tile + 2
                elif meld.tile == tile:
                    n += len(meld.tiles)
        return n

    def _self_drawn_score(self, seat: int) -> Score | None:
        t = self._last_drawn[seat]
        c = self._counts[seat]
        if t is None or not c[t]:
            return None
        c[t] -= 1
        # the 13 tiles before the draw: usually known since the last discard
        ready = self._memo.may_be_ready(seat, c, len(self._melds[seat]), by_rev=False)
        c[t] += 1
        if not ready:
            return None
        last = self.wall_empty(seat)
        return self._judge(seat, t, True, self.turn_kind is TurnKind.KONG, last)

    def _judge(
        self, seat: int, tile: Tile, self_drawn: bool, kong: bool, last: bool
    ) -> Score | None:
        """The score if ``seat`` (holding ``tile`` already) may win now, else None."""
        counts, melds = self._counts[seat], self._melds[seat]
        if not complete(counts, len(melds)):  # most hands on offer do not win
            return None
        return score_win(counts, melds, self._context(seat, tile, self_drawn, kong, last))

    def _win(self, seat: int, from_seat: int | None, tile: Tile, score: Score) -> None:
        points = win_points(seat, from_seat, score.total)
        fans = tuple((fc.fan.id, fc.count) for fc in score.fans)
        self.events.append(
            m.Win(
                seat=seat,
                from_seat=from_seat,
                win_tile=tile,
                fans=fans,
                total=score.total,
                points=points,
            )
        )
        self._end(
            HandOutcome(Outcome.WIN, points, seat, from_seat, Tile(tile), score),
        )

    def _exhaustive_draw(self) -> None:
        self.events.append(m.ExhaustiveDraw())
        self._end(HandOutcome(Outcome.EXHAUSTIVE_DRAW, (0, 0, 0, 0)))

    def _end(self, result: HandOutcome) -> None:
        self.result = result
        self.phase = Phase.ENDED
        self._memo.turn_actions = None
        self._options = {}
        self._answers = {}
        w = self.wall
        self.events.append(
            m.HandEnd(
                outcome=result.outcome,
                concealed=tuple(self.concealed(s) for s in range(4)),
                melds=tuple(tuple(E.meld_view(x) for x in self.melds(s)) for s in range(4)),
                wall_order=w.order,
                salt=w.salt.hex(),
                commitment=w.commitment,
                points=result.points,
            )
        )

    # -- replay and plain data (views of the hand: views.make_view) -------------------
    @classmethod
    def replay(
        cls,
        wall: Wall | PersonalWalls | bytes,
        log: Iterable[tuple[int, ActionChoice | None]],
        *,
        dealer: int = 0,
        prevailing_wind: Tile = Tile.E,
        round_number: int = 1,
        hand_number: int = 1,
    ) -> HandState:
        """The state reached by playing ``log`` ((seat, action), None = escape) on
        ``wall`` (or on the wall of a seed, dealt by ``dealer``)."""
        if isinstance(wall, bytes):
            wall = Wall.from_seed(wall, dealer=dealer)
        state = cls(
            wall,
            prevailing_wind=prevailing_wind,
            round_number=round_number,
            hand_number=hand_number,
        )
        for seat, action in log:
            if action is None:
                state.escape(seat)
            else:
                state.apply(seat, action)
        return state

    def to_dict(self) -> dict[str, Plain]:
        """Plain data (ints, strs, lists, dicts) from which ``from_dict`` restores the hand."""
        return {
            "wall": self.wall.to_dict(),
            "prevailing_wind": int(self.prevailing_wind),
            "round_number": self.round_number,
            "hand_number": self.hand_number,
            "log": [
                [seat, {"kind": "escape"} if a is None else to_plain(a)] for seat, a in self.log
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> HandState:
        plain_wall = E.plain_dict(data["wall"], "wall")
        return cls.replay(
            PersonalWalls.from_dict(plain_wall)
            if "walls" in plain_wall
            else Wall.from_dict(plain_wall),
            log_of(data["log"]),
            prevailing_wind=Tile(E.plain_int(data, "prevailing_wind")),
            round_number=E.plain_int(data, "round_number"),
            hand_number=E.plain_int(data, "hand_number"),
        )

    def snapshot(self) -> dict[str, object]:
        """Every part of the state but its speed caches (``memo``), as values, for
        comparing two states (replay checks)."""
        return {k: _frozen(v) for k, v in vars(self).items() if k != "_memo"}


def _frozen(value: object) -> object:
    """``value`` with its lists and dicts (the mutable parts of a hand, each holding one
    kind of item) made tuples."""
    if isinstance(value, list):
        if value and isinstance(value[0], list | dict):
            return tuple(map(_frozen, value))
        return tuple(value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


def log_of(plain: Plain) -> list[tuple[int, ActionChoice | None]]:
    """A hand's action log from its plain form: (seat, action), None where it escaped."""
    log: list[tuple[int, ActionChoice | None]] = []
    for entry in E.plain_list(plain, "an action log"):
        seat, action = E.plain_list(entry, "a log entry")
        if not isinstance(seat, int):
            raise ValueError(f"a log entry starts with a seat, not {seat!r}")
        a = E.plain_dict(action, "an action")
        log.append((seat, None if a["kind"] == "escape" else from_plain(a)))
    return log


__all__ = ["HandState", "IllegalAction", "SeatData", "TurnKind", "log_of"]
