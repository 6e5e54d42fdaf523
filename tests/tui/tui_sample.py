"""Samples for the client tests: a mid-hand view from seat 0 (plain values), and a real
hand played by bots with its log as the server sends it."""

from __future__ import annotations

from dataclasses import replace

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand
from gbmj.game.hand_state import HandState
from gbmj.game.wall import commitment_of
from gbmj_tui.model import MeldModel, PromptView, SeatModel, TableView, TimerView
from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind

T = Tile
NAMES = ("alice", "bob", "carol", "dave")  # a sample hand's seats 0-3


def sample_view(me: int | None = 0) -> TableView:
    """South round hand 3; seat 0 holds 10 tiles + a drawn 5p; seat 3 (left) discarded last."""
    seats = (
        SeatModel(
            seat=0,
            name="Alice",
            wind=T.W,
            score=1200,
            concealed_count=11,
            melds=(MeldModel("pung", T.C, claimed_from=2, claimed_tile=T.C),),
            flowers=(T.F1,),
            discards=(T.N, T.M9, T.P1),
        ),
        SeatModel(
            seat=1,
            name="Bot-Bao",
            wind=T.N,
            score=-400,
            concealed_count=10,
            bot=True,
            melds=(MeldModel("kong", None, concealed=True),),
            discards=(T.W, T.S1, T.S9, T.P9, T.M1, T.E, T.F),
        ),
        SeatModel(
            seat=2,
            name="Carol",
            wind=T.E,
            score=800,
            concealed_count=10,
            melds=(MeldModel("chow", T.S3, claimed_from=1, claimed_tile=T.S4),),
            flowers=(T.F5, T.F6),
            discards=(T.P, T.S, T.M2),
        ),
        SeatModel(
            seat=3,
            name="Dan",
            wind=T.S,
            score=-1600,
            concealed_count=13,
            discards=(T.N, T.P2, T.M8, T.M4),
        ),
    )
    return TableView(
        seats=seats,
        me=me,
        hand=(T.M2, T.M3, T.P4, T.P6, T.P7, T.S5, T.S5, T.S6, T.S7, T.E) if me == 0 else (),
        drawn=None,
        table_name="Table 1",
        round_number=2,
        hand_number=3,
        prevailing_wind=T.S,
        dealer=2,
        wall_count=61,
        dice=((3, 5), (2, 6)),
        turn=0,
        last_discard=3,
        offer=(3, T.M4),
        timer_ms=(30_000, 15_000, 5_000),
        playing=True,
    )


def claim_prompt(view: TableView) -> TableView:
    """Seat 3 (left) discarded 4m: seat 0 may chow it two ways, or pass."""
    prompt = PromptView(
        actions=(
            ActionChoice(kind=ActionKind.CHOW, tile=T.M2),
            ActionChoice(kind=ActionKind.CHOW, tile=T.M3),
            ActionChoice(kind=ActionKind.PASS),
        ),
        timer="claim_window",
        ms_left=5000,
        seq=41,
        tile=T.M4,
        from_seat=3,
    )
    return replace(view, prompt=prompt, timer=TimerView((0,), "claim_window", 5000, 5000))


def turn_prompt(view: TableView, drawn: int = T.P5) -> TableView:
    """Seat 0 drew ``drawn``: discard any tile, or win."""
    tiles = (*view.hand, drawn)
    actions = (
        *(ActionChoice(kind=ActionKind.DISCARD, tile=t) for t in sorted(set(tiles))),
        ActionChoice(kind=ActionKind.WIN),
    )
    prompt = PromptView(actions=actions, timer="turn", ms_left=15000, seq=42)
    return replace(
        view,
        drawn=drawn,
        prompt=prompt,
        timer=TimerView((0,), "turn", 15000, 15000),
    )


def sample_result(view: TableView) -> TableView:
    """Carol (seat 2) wins on Dan's (seat 3) discard of 6p: 混一色 + 幺九刻 + two flowers."""
    from gbmj_tui.model import FanLine, ResultView

    result = ResultView(
        outcome="win",
        winner=2,
        from_seat=3,
        win_tile=T.P6,
        fans=(FanLine(49, 1), FanLine(73, 2), FanLine(81, 2)),
        total=10,
        points=(-8, -8, 34, -18),
        scores=(1192, -408, 834, -1618),
        hands=(
            view.hand,
            (T.M1,) * 3 + (T.P2, T.P3, T.P4, T.S8, T.S8, T.S9, T.S9),
            (T.P1, T.P2, T.P3, T.P5, T.P6, T.P7, T.P9, T.P9, T.E, T.E, T.P6),
            (T.M5, T.M6, T.M7, T.S1, T.S2, T.S3, T.W, T.W, T.W, T.N, T.N, T.P, T.P),
        ),
        melds=(
            (MeldModel("pung", T.C, claimed_from=2, claimed_tile=T.C),),
            (MeldModel("kong", T.P9, concealed=True),),
            (MeldModel("chow", T.S3, claimed_from=1, claimed_tile=T.S4),),
            (),
        ),
        flowers=((T.F1,), (), (T.F5, T.F6), ()),
        hand_id=412,
        wall_verified=True,
    )
    return replace(view, result=result, playing=False, prompt=None, timer=None)


def bot_hand(seed: bytes = b"replay-35") -> HandState:
    """A hand played by bots: this seed's has a chow, a pung, an added kong, flowers
    drawn during play and a win on a discard."""
    return play_hand([make_bot("normal", 7 + s) for s in range(4)], seed, dealer=0)


def hand_log(state: HandState, escape: int | None = None) -> m.HandLog:
    """The hand's log as the server sends it (``get_hand``), names ``NAMES``."""
    w = state.wall
    actions = tuple(
        m.LoggedAction(seat=seat, kind=a.kind, tile=a.tile, ms=100 * i)
        for i, (seat, a) in enumerate(state.log)
        if a is not None
    )
    assert state.result is not None
    return m.HandLog(
        hand_id=41, match_id=7, number=1, round_number=1, hand_number=1,
        prevailing_wind=Tile.E, dealer=state.dealer, dice=w.dice,
        wall_order=tuple(w.order), salt=w.salt.hex(),
        commitment=commitment_of(w.order, w.salt, 7, 1),  # bound to match 7, hand 1
        players=NAMES, actions=actions, escape=escape, points=tuple(state.result.points),
        coins=None,
    )  # fmt: skip
