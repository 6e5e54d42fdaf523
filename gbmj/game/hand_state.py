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

from protocol.tiles import WINDS, Tile
from protocol.vocabulary import ActionKind, MeldKind, Outcome, Phase, TimerClass

from ..rules.errors import HandError
from ..rules.hand import Meld
from ..rules.readiness import may_be_ready
from ..rules.scoring import Score, WinContext
from ..rules.shapes import is_complete
from . import actions as A
from . import events as E
from .actions import Action
from .personal_walls import PersonalWalls
from .settlement import HandResult, escape_points, score_win, win_points
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


# Pure results by (concealed counts, melds), shared by every hand: a replay, or another
# hand reaching the same tiles, looks them up instead of working them out again.
_READY: dict[tuple[bytes, int], bool] = {}  # readiness.may_be_ready
_COMPLETE: dict[tuple[bytes, int], bool] = {}  # shapes.is_complete
_MEMO_LIMIT = 50_000  # entries each, ~10 MB (a long-running server keeps memory bounded)


def _remember(memo: dict[tuple[bytes, int], bool], key: tuple[bytes, int], value: bool) -> bool:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _new_seat_data(fields: tuple[object, ...]) -> SeatData:
    """SeatData from its four fields (without NamedTuple's keyword handling: hot path)."""
    return tuple.__new__(SeatData, fields)


class IllegalAction(HandError):
    """An action refused: ``code`` is ``hand_over``, ``not_your_turn`` or ``illegal_action``."""


_TILES = tuple(Tile)
_RUNS = tuple(tuple((t,) * n for n in range(5)) for t in _TILES[:34])  # [tile][count]
# The most frequent events, one shared (immutable) value each: [seat][tile][replacement]
# and [seat][tile]. Building a frozen dataclass per draw and discard costs more.
_DRAW_EVENTS = tuple(
    tuple((E.Draw(s, t, False), E.Draw(s, t, True)) for t in _TILES) for s in range(4)
)
_DISCARD_EVENTS = tuple(tuple(E.Discard(s, t) for t in _TILES[:34]) for s in range(4))
_DISCARDS = tuple(A.discard(Tile(t)) for t in range(34))
_CONCEALED_KONGS = tuple(A.concealed_kong(Tile(t)) for t in range(34))
_ADDED_KONGS = tuple(A.added_kong(Tile(t)) for t in range(34))


def _chows_with(t: int) -> tuple[tuple[Action, int, int], ...]:
    """The chows a discard of ``t`` completes, as (chow action, the two other tiles)."""
    out = []
    for lo in (t - 2, t - 1, t):
        if t < 27 and lo >= 0 and lo // 9 == t // 9 and lo % 9 <= 6:
            x, y = (u for u in (lo, lo + 1, lo + 2) if u != t)
            out.append((A.chow(Tile(lo)), x, y))
    return tuple(out)


_CHOWS_WITH = tuple(_chows_with(t) for t in range(34))


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
        self._options: dict[int, tuple[Action, ...]] = {}
        self._answers: dict[int, Action] = {}
        self._turn_cache: tuple[Action, ...] | None = None
        self._win_cache: dict[int, Score] = {}
        self.result: HandResult | None = None
        self.events: list[E.Event] = []
        self.log: list[tuple[int, Action | None]] = []  # (seat, action); None = escape
        self.version = 0  # bumped by every step
        # Per seat: a revision bumped whenever the seat's tiles change, and the
        # SeatData built for it (views rebuild only the seats that changed).
        self._rev = [0, 0, 0, 0]
        self._seat_cache: list[tuple[int, SeatData] | None] = [None] * 4
        # Per seat: (rev or -1, counts, melds, may be ready) of the last readiness bound.
        self._ready: list[tuple[int, bytes, int, bool] | None] = [None] * 4
        self._deal()

    # -- the deal ---------------------------------------------------------------------
    def _deal(self) -> None:
        w = self.wall
        ev = self.events
        ev.append(
            E.HandStart(
                self.round_number,
                self.hand_number,
                self.dealer,
                self.seat_winds,
                self.prevailing_wind,
                w.dice,
                w.second_roller,
                w.break_stack,
                w.commitment,
            )
        )
        pending: list[list[Tile]] = [[] for _ in range(4)]
        for offset in range(4):
            seat = (self.dealer + offset) % 4
            if self.personal_walls:
                tiles = self._seqs[seat][: self._front[seat]]
            else:
                tiles = tuple(self._seqs[0][p] for p in deal_positions(offset))
            ev.append(E.Deal(seat, tiles, len(tiles)))
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
                    ev.append(E.Flower(seat, f))
                    self._back[0] -= 1  # flowers come only with the shared wall
                    t = self._seqs[0][self._back[0]]
                    ev.append(_DRAW_EVENTS[seat][t][True])
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
        return self._rev[seat]

    def seat_data(self, seat: int) -> SeatData:
        """The seat's tiles as immutable values, rebuilt only after they change."""
        cached = self._seat_cache[seat]
        rev = self._rev[seat]
        if cached is not None and cached[0] == rev:
            return cached[1]
        data = _new_seat_data(
            (
                tuple(chain.from_iterable(map(getitem, _RUNS, self._counts[seat]))),
                tuple(self._melds[seat]),
                tuple(self._flowers[seat]),
                tuple(self._discards[seat]),
            )
        )
        self._seat_cache[seat] = (rev, data)
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

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Everything ``seat`` may do now; empty unless the seat is in ``to_act``."""
        if self.phase is Phase.TURN:
            if seat != self.turn_seat:
                return ()
            if self._turn_cache is None:
                self._turn_cache = self._turn_actions(seat)
            return self._turn_cache
        if self.phase is Phase.CLAIM and seat not in self._answers:
            return self._options.get(seat, ())
        return ()

    # -- playing ----------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[E.Event]:
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

    def timeout(self, seat: int) -> list[E.Event]:
        """The default action of docs/rules.md §2.3 for ``seat``: declare a valid win, else
        discard the drawn tile (the rightmost tile after a chow or pung), else pass."""
        return self.apply(seat, self.default_action(seat))

    def default_action(self, seat: int) -> Action:
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction("not_your_turn", f"seat {seat} has nothing to decide now")
        if A.WIN in legal:
            return A.WIN
        if self.phase is Phase.CLAIM:
            return A.PASS
        drawn = self._last_drawn[seat]
        if self.turn_kind is not TurnKind.CLAIM and drawn is not None and self._counts[seat][drawn]:
            return _DISCARDS[drawn]
        c = self._counts[seat]
        return _DISCARDS[max(t for t in range(34) if c[t])]

    def escape(self, seat: int) -> list[E.Event]:
        """``seat`` leaves the match on purpose (docs/rules.md §2.4): the hand ends at once."""
        if self.phase is Phase.ENDED:
            raise IllegalAction("hand_over", "the hand is over")
        start = len(self.events)
        self.version += 1
        self.log.append((seat, None))
        offer = self.offer
        if offer is not None and offer[2]:  # an added kong left unresolved: it never happened
            self._counts[offer[0]][offer[1]] += 1
            self._rev[offer[0]] += 1
        self.events.append(E.Escape(seat))
        self._end(HandResult(Outcome.ESCAPE, escape_points(seat), escaper=seat))
        return self.events[start:]

    # -- turns ------------------------------------------------------------------------
    def _turn_actions(self, seat: int) -> tuple[Action, ...]:
        c = self._counts[seat]
        out: list[Action] = []
        if self.turn_kind is not TurnKind.CLAIM:
            if self._self_drawn_score(seat) is not None:
                out.append(A.WIN)
            if not self.wall_empty(seat):  # a kong needs a replacement tile
                if 4 in c:
                    out.extend(_CONCEALED_KONGS[t] for t in range(34) if c[t] == 4)
                out.extend(
                    _ADDED_KONGS[m.tile]
                    for m in self._melds[seat]
                    if m.kind is MeldKind.PUNG and c[m.tile]
                )
        out.extend(compress(_DISCARDS, c))
        return tuple(out)

    def _apply_turn(self, seat: int, action: Action) -> None:
        kind = action.kind
        c = self._counts[seat]
        self._rev[seat] += 1
        ev = self.events
        if kind is ActionKind.DISCARD:
            t = A.tile_of(action)
            c[t] -= 1
            self._discards[seat].append(t)
            self.discard_count += 1
            ev.append(_DISCARD_EVENTS[seat][t])
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
            ev.append(E.ConcealedKong(seat, t))
            self._draw(seat, replacement=True, after_kong=True)
        else:  # added kong: the others may rob it first
            t = A.tile_of(action)
            c[t] -= 1
            ev.append(E.AddedKong(seat, t))
            self._open_rob(seat, t)

    def _start_turn(self, seat: int, kind: TurnKind) -> None:
        self.phase = Phase.TURN
        self.turn_seat = seat
        self.turn_kind = kind
        self._turn_cache = None
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
            ev.append(_DRAW_EVENTS[seat][t][replacement])
            if t < 34:
                break
            self._flowers[seat].append(t)
            self._rev[seat] += 1
            ev.append(E.Flower(seat, t))
            replacement = True
        self._counts[seat][t] += 1
        self._rev[seat] += 1
        self._last_drawn[seat] = t
        self._start_turn(seat, TurnKind.KONG if after_kong else TurnKind.DRAW)

    # -- claims -----------------------------------------------------------------------
    def _open_claims(self, discarder: int, t: Tile) -> None:
        # The last discard, after which the seat due to draw has no tile: only a win may
        # claim it.
        last = self.wall_empty((discarder + 1) % 4)
        options: dict[int, tuple[Action, ...]] = {}
        self._win_cache = {}
        for i in (1, 2, 3):
            s = (discarder + i) % 4
            c = self._counts[s]
            opts: list[Action] = []
            score = None
            if self._may_be_ready(s):
                c[t] += 1
                score = self._judge(s, t, False, False, last)
                c[t] -= 1
            if score is not None:
                self._win_cache[s] = score
                opts.append(A.WIN)
            if not last:
                n = c[t]
                if n >= 2:
                    opts.append(A.PUNG)
                    if n == 3 and not self.wall_empty(s):  # its replacement
                        opts.append(A.EXPOSED_KONG)
                if i == 1:
                    for chow, x, y in _CHOWS_WITH[t]:
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
        options: dict[int, tuple[Action, ...]] = {}
        self._win_cache = {}
        for i in (1, 2, 3):
            s = (adder + i) % 4
            if not self._may_be_ready(s):
                continue
            c = self._counts[s]
            c[t] += 1
            score = self._judge(s, t, False, True, False)
            c[t] -= 1
            if score is not None:
                self._win_cache[s] = score
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
                    self._rev[s] += 1
                    self._rev[d] += 1
                    self._win(s, d, t, self._win_cache[s])
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

    def _claim(self, seat: int, d: int, t: Tile, action: Action) -> None:
        self._take_discard(d)
        c = self._counts[seat]
        self._rev[seat] += 1
        self._rev[d] += 1
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
            ev.append(E.Chow(seat, meld.tiles, t, d))
            self._start_turn(seat, TurnKind.CLAIM)
        elif kind is ActionKind.PUNG:
            meld = Meld(MeldKind.PUNG, t, claimed_from=rel, claimed_tile=t)
            c[t] -= 2
            self._melds[seat].append(meld)
            ev.append(E.Pung(seat, meld.tiles, t, d))
            self._start_turn(seat, TurnKind.CLAIM)
        else:
            meld = Meld(MeldKind.KONG, t, claimed_from=rel, claimed_tile=t)
            c[t] -= 3
            self._melds[seat].append(meld)
            ev.append(E.ExposedKong(seat, meld.tiles, t, d))
            self._draw(seat, replacement=True, after_kong=True)

    def _complete_added_kong(self) -> None:
        assert self._offer is not None  # only an offered added kong is completed
        seat, t, _ = self._offer
        melds = self._melds[seat]
        self._rev[seat] += 1
        for i, m in enumerate(melds):
            if m.kind is MeldKind.PUNG and m.tile == t:
                melds[i] = Meld(
                    MeldKind.KONG,
                    t,
                    claimed_from=m.claimed_from,
                    claimed_tile=m.claimed_tile,
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
            prevalent_wind=self.prevailing_wind,
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
            for m in self._melds[s]:
                if m.concealed:
                    continue
                if m.kind is MeldKind.CHOW:
                    n += m.tile <= tile <= m.tile + 2
                elif m.tile == tile:
                    n += len(m.tiles)
        return n

    def _self_drawn_score(self, seat: int) -> Score | None:
        t = self._last_drawn[seat]
        c = self._counts[seat]
        if t is None or not c[t]:
            return None
        c[t] -= 1
        # the 13 tiles before the draw: usually known since the last discard
        ready = self._may_be_ready(seat, by_rev=False)
        c[t] += 1
        if not ready:
            return None
        last = self.wall_empty(seat)
        return self._judge(seat, t, True, self.turn_kind is TurnKind.KONG, last)

    def _may_be_ready(self, seat: int, *, by_rev: bool = True) -> bool:
        """``readiness.may_be_ready`` for the seat's 13 concealed tiles, kept while they
        stay the same: a seat is checked on others' discards and again, with the same 13
        tiles, when it draws. ``by_rev``: the counts are the seat's own at its revision
        (not a drawn tile set aside), so an unchanged revision answers at once."""
        entry = self._ready[seat]
        rev = self._rev[seat]
        if by_rev and entry is not None and entry[0] == rev:
            return entry[3]
        c = self._counts[seat]
        key = bytes(c)  # compact, and compares and hashes fast
        melds = len(self._melds[seat])
        if entry is None or entry[1] != key or entry[2] != melds:
            ready = _READY.get((key, melds))
            if ready is None:
                ready = _remember(_READY, (key, melds), may_be_ready(c, melds))
        else:
            ready = entry[3]
        self._ready[seat] = (rev if by_rev else -1, key, melds, ready)
        return ready

    def _judge(
        self, seat: int, tile: Tile, self_drawn: bool, kong: bool, last: bool
    ) -> Score | None:
        """The score if ``seat`` (holding ``tile`` already) may win now, else None."""
        counts, melds = self._counts[seat], self._melds[seat]
        key = (bytes(counts), len(melds))
        complete = _COMPLETE.get(key)
        if complete is None:
            complete = _remember(_COMPLETE, key, is_complete(counts, len(melds)))
        if not complete:  # most hands on offer do not win
            return None
        return score_win(counts, melds, self._context(seat, tile, self_drawn, kong, last))

    def _win(self, seat: int, from_seat: int | None, tile: Tile, score: Score) -> None:
        points = win_points(seat, from_seat, score.total)
        fans = tuple((fc.fan.id, fc.count) for fc in score.fans)
        self.events.append(E.Win(seat, from_seat, tile, fans, score.total, points))
        self._end(
            HandResult(Outcome.WIN, points, seat, from_seat, Tile(tile), score),
        )

    def _exhaustive_draw(self) -> None:
        self.events.append(E.ExhaustiveDraw())
        self._end(HandResult(Outcome.EXHAUSTIVE_DRAW, (0, 0, 0, 0)))

    def _end(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.ENDED
        self._turn_cache = None
        self._options = {}
        self._answers = {}
        w = self.wall
        self.events.append(
            E.HandEnd(
                result.outcome.value,
                tuple(self.concealed(s) for s in range(4)),
                tuple(self.melds(s) for s in range(4)),
                w.order,
                w.salt,
                w.commitment,
                result.points,
            )
        )

    # -- replay and plain data (views of the hand: views.make_view) -------------------
    @classmethod
    def replay(
        cls,
        wall: Wall | PersonalWalls | bytes,
        log: Iterable[tuple[int, Action | None]],
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
                [seat, {"kind": "escape"} if a is None else a.to_dict()] for seat, a in self.log
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

    def snapshot(self) -> tuple[object, ...]:
        """Every part of the state, for comparing two states (replay checks)."""
        return (
            self.phase,
            self.turn_seat,
            self.turn_kind,
            tuple(self._front),
            tuple(self._back),
            tuple(tuple(c) for c in self._counts),
            tuple(tuple(m) for m in self._melds),
            tuple(tuple(f) for f in self._flowers),
            tuple(tuple(d) for d in self._discards),
            tuple(self._last_drawn),
            self._offer,
            tuple(sorted(self._options.items())),
            tuple(sorted(self._answers.items())),
            self.discard_count,
            self.result,
            tuple(self.events),
        )


def log_of(plain: Plain) -> list[tuple[int, Action | None]]:
    """A hand's action log from its plain form: (seat, action), None where it escaped."""
    log: list[tuple[int, Action | None]] = []
    for entry in E.plain_list(plain, "an action log"):
        seat, action = E.plain_list(entry, "a log entry")
        if not isinstance(seat, int):
            raise ValueError(f"a log entry starts with a seat, not {seat!r}")
        a = E.plain_dict(action, "an action")
        log.append((seat, None if a["kind"] == "escape" else Action.from_dict(a)))
    return log


__all__ = ["HandState", "IllegalAction", "SeatData", "TurnKind", "log_of"]
