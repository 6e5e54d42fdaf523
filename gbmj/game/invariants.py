"""Invariants of a hand, checked after every step by the simulation test and the bench.

``check_step`` raises ``AssertionError`` naming the broken invariant. ``play_random_hand``
plays one hand with a random legal policy (seeded: deterministic) and checks as it goes.
"""

from __future__ import annotations

import random

from protocol.messages import ConcealedKong, Deal, Draw, EventBody, SeatView
from protocol.vocabulary import ActionKind, MeldKind, Phase

from .actions import WIN
from .events import SPECTATOR, for_viewer, meld_view
from .hand_state import HandState, SeatData
from .personal_walls import PERSONAL_SET, PersonalWalls
from .settlement import ESCAPE_POINTS
from .views import HandView, all_views
from .wall import WALL_SIZE, Wall

VIEWERS = (0, 1, 2, 3, SPECTATOR)
_HIDDEN_EVENTS = (Deal, Draw, ConcealedKong)
_TURN, _CLAIM, _ENDED, _KONG = Phase.TURN, Phase.CLAIM, Phase.ENDED, MeldKind.KONG


def check_step(state: HandState, events: list[EventBody]) -> None:
    """Everything that must hold after any step (``events``: what the step emitted)."""
    data = [state.seat_data(s) for s in range(4)]
    phase = state.phase
    ended = phase is _ENDED
    result = state.result
    offer = state.offer
    total = state.wall_remaining + (1 if offer is not None and offer[2] else 0)
    escaped = ended and result is not None and result.escaper is not None
    holder = -1  # the seat holding one tile more: the seat on turn, or the winner
    if phase is _TURN:
        holder = state.turn_seat
    elif ended and result is not None and result.winner is not None:
        holder = result.winner
    counts, pools, melds, flowers = state._counts, state._discards, state._melds, state._flowers
    for s in range(4):
        d = data[s]
        held, pool, kept, shown = len(d.concealed), len(d.discards), len(d.melds), len(d.flowers)
        # the cached seat data must follow the live state (compared in full at the end)
        assert held == sum(counts[s]), f"stale hand of seat {s}"
        assert pool == len(pools[s]), f"stale pool of seat {s}"
        assert kept == len(melds[s]), f"stale melds of seat {s}"
        assert shown == len(flowers[s]), f"stale flowers of seat {s}"
        kongs = 0
        for m in d.melds:
            kongs += m.kind is _KONG
        n = held + 3 * kept + kongs
        total += n + shown + pool
        expected = 13 + kongs + (s == holder)
        if escaped:
            # an escape may end the hand while the seat on turn holds its drawn tile
            assert n in (expected, expected + (s == state.turn_seat)), f"seat {s} holds {n}"
        else:
            assert n == expected, f"seat {s} holds {n} tiles, not {expected}"
    size = len(PERSONAL_SET) if state.personal_walls else WALL_SIZE
    assert total == size, f"{total} tiles accounted for, not {size}"
    for s in state.to_act:
        assert state.legal_actions(s), f"seat {s} must act but has no legal action"
    if ended:
        assert result is not None and not state.to_act
        points = sum(result.points)
        assert points == (-ESCAPE_POINTS if result.escaper is not None else 0), "points"
    for event in events:
        if isinstance(event, _HIDDEN_EVENTS):
            passed = None  # the non-owners' forms are usually one shared value: check it once
            for viewer in VIEWERS:
                if viewer != event.seat:
                    seen = for_viewer(event, viewer)
                    if seen is passed:
                        continue
                    assert getattr(seen, "tile", None) is None, f"{event} leaks to {viewer}"
                    assert getattr(seen, "tiles", None) is None, f"{event} leaks to {viewer}"
                    passed = seen
    check_views(state, all_views(state), data)


def check_view(
    state: HandState, viewer: int, view: HandView, data: list[SeatData] | None = None
) -> None:
    """No view shows a tile its viewer may not see; after the hand everything shows."""
    check_views(state, {viewer: view}, data)


def check_views(
    state: HandState, views: dict[int, HandView], data: list[SeatData] | None = None
) -> None:
    """``check_view`` for several viewers at once (``views``: viewer -> view).

    The spectator's view is checked first; the seat forms in it are then known to be
    right for anyone who sees that seat from outside, so the very same (immutable)
    objects in other views need no second look.
    """
    if data is None:
        data = [state.seat_data(s) for s in range(4)]
    phase = state.phase
    ended = phase is _ENDED
    wall = state.wall
    checked: tuple[SeatView | None, ...] = (None, None, None, None)
    for viewer in sorted(views):  # SPECTATOR (-1) first
        view = views[viewer]
        seats = view.game.seats
        assert view.viewer == viewer and len(seats) == 4
        for s in range(4):
            sv = seats[s]
            if s != viewer and sv is checked[s]:
                continue
            d = data[s]
            assert sv.seat == s and sv.concealed_count == len(d.concealed)
            assert sv.flowers == d.flowers and sv.discards == d.discards, f"seat {s}'s table"
            if ended or s == viewer:
                assert sv.concealed == d.concealed, "own hand or reveal wrong"
                assert sv.melds == tuple(map(meld_view, d.melds)) if d.melds else not sv.melds
            else:
                assert sv.concealed is None, f"seat {s}'s hand shown to {viewer}"
                assert sv.drawn is None, f"seat {s}'s draw shown to {viewer}"
                assert len(sv.melds) == len(d.melds), f"seat {s}'s melds miscounted"
                for m in sv.melds:
                    assert m is None or not m.concealed, "a concealed kong shown face up"
        if ended:
            assert view.wall_order == wall.order and view.salt == wall.salt
        else:
            assert view.wall_order is None and view.salt is None, "wall shown during the hand"
            if phase is _CLAIM:
                assert view.game.to_act in ((), (viewer,)), "other claimants shown"
        if viewer == SPECTATOR:
            assert view.legal_actions == ()
            checked = seats


def check_replay(state: HandState) -> None:
    """The hand's plain form (wall + action log) replays to the very same state."""
    restored = HandState.from_dict(state.to_dict())
    assert restored.snapshot() == state.snapshot(), "replaying the log gives another state"
    for s in range(4):  # built fresh in ``restored``, from caches in ``state``
        assert restored.seat_data(s) == state.seat_data(s), f"stale data of seat {s}"


# The claim-happy policy's preference: win, then kongs, pungs, chows, then anything.
_GREED = {
    ActionKind.WIN: 0,
    ActionKind.CONCEALED_KONG: 1,
    ActionKind.ADDED_KONG: 1,
    ActionKind.EXPOSED_KONG: 1,
    ActionKind.PUNG: 2,
    ActionKind.CHOW: 3,
}


def play_random_hand(
    seed: bytes,
    rng: random.Random,
    *,
    check: bool = True,
    escape_rate: float = 0.0,
    greedy: bool = False,
    personal_walls: bool = False,
) -> HandState:
    """One hand on the wall of ``seed`` with random legal choices; checks every step and
    the replay when ``check``.

    The random policy takes a win nine times in ten and times a seat out one step in ten.
    The ``greedy`` policy claims and kongs whenever it may (85 % of its choices), which
    makes melds, kongs, robbed kongs and wins far more frequent. ``personal_walls``: the
    hand of duplicate play, each seat on its own wall.
    """
    dealer = rng.randrange(4)
    wall = PersonalWalls.from_seed(seed, dealer) if personal_walls else Wall.from_seed(seed, dealer)
    state = HandState(wall)
    if check:
        check_step(state, state.events)
    escape_at = rng.randrange(200) if rng.random() < escape_rate else -1
    step = 0
    while not state.ended:
        seat = rng.choice(state.to_act)
        if step == escape_at:
            events = state.escape(seat)
        elif rng.random() < 0.1:
            events = state.timeout(seat)
        else:
            legal = state.legal_actions(seat)
            if greedy and rng.random() < 0.85:
                best = min(_GREED.get(a.kind, 9) for a in legal)
                action = rng.choice([a for a in legal if _GREED.get(a.kind, 9) == best])
            else:
                # (kinds: a cheaper membership test than comparing actions)
                win = ActionKind.WIN in [a.kind for a in legal]
                action = WIN if win and rng.random() < 0.9 else rng.choice(legal)
            events = state.apply(seat, action)
        step += 1
        if check:
            check_step(state, events)
    if check:
        check_replay(state)
    return state
