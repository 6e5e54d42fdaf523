"""The app's handling of pushed messages, without a server (fed through the session's
own dispatch): table chat in the chat panel, the tile counter's panel, the timer
extension's armed state, a snapshot at any time (names to the right seats, the open
prompt kept, stale events dropped)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from tui_harness import OfflineApp, screen_text, widget_text
from tui_sample import claim_prompt, sample_view

from gbmj_tui.widgets import TileCounter
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile as T

SNAPSHOT: m.Snapshot = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Snapshot))
TABLE = SNAPSHOT.table.table_id


def _pushed(view, messages, lang="en", check=None):
    async def go():
        app = OfflineApp(replace(view, table_id=TABLE), lang=lang)
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await pilot.pause()
            for message in messages:
                app.push(message)
                await pilot.pause()
            await pilot.pause()
            return check(app) if check else (app.session.view, screen_text(app))

    return asyncio.run(go())


@pytest.mark.slow
def test_table_chat_goes_to_the_chat_panel() -> None:
    lines = [
        m.Chat(channel="table", table_id=TABLE, sender="Dan", text="hello [b]there"),
        m.Chat(channel="table", table_id=TABLE, sender=None, text="the server speaks"),
    ]
    text = _pushed(
        sample_view(), lines, check=lambda app: widget_text(app.screen.query_one("#table-chat"))
    )
    assert "Dan: hello" in text and "[b]there" in text  # no markup taken from a name or text
    assert "*: the server" in text


@pytest.mark.slow
def test_tile_counts_show_in_the_counter_panel_until_the_next_hand() -> None:
    counts = [4] * 34
    counts[T.M5] = 1
    msg = m.TileCounts(table_id=TABLE, seq=40, counts=tuple(counts))

    def check(app):
        panel = app.screen.query_one(TileCounter)
        return panel.display, widget_text(panel), app.session.view.unseen

    shown, text, unseen = _pushed(sample_view(), [msg], check=check)
    assert shown and unseen == tuple(counts)
    assert "m  4 4 4 4 1 4 4 4 4" in text and "tile counter" in text
    start = m.HandStart(
        round_number=1, hand_number=2, dealer=1, seat_winds=(T.N, T.E, T.S, T.W),
        prevailing_wind=T.E, dice=((1, 2), (3, 4)), second_roller=0, break_stack=5,
        commitment="0" * 64,
    )  # fmt: skip
    event = m.Event(table_id=TABLE, seq=50, event=start)
    shown, _text, unseen = _pushed(sample_view(), [msg, event], check=check)
    assert not shown and unseen is None


@pytest.mark.slow
def test_own_timer_extension_firing_disarms_it() -> None:
    view = replace(claim_prompt(sample_view()), extension_armed=True)
    _, before = _pushed(view, [])
    assert "extension armed" in before.split("\n")[0]
    fired = m.TimerExtended(table_id=TABLE, seat=0, ms_left=95_000)
    after, text = _pushed(view, [fired])
    assert not after.extension_armed
    assert "extension armed" not in text.split("\n")[0]
    assert "West Alice: timer extended" in " ".join(text.split())  # the action line


@pytest.mark.slow
def test_a_snapshot_at_any_time_puts_names_at_their_seats_and_drops_stale_events() -> None:
    view = replace(claim_prompt(sample_view()), seq=10)
    # the snapshot says who sits where now (a new seating); an event it already holds
    # (seq 57) changes nothing, a newer one applies
    stale = m.Event(table_id=TABLE, seq=SNAPSHOT.seq, event=m.Discard(seat=1, tile=T.S9))
    newer = m.Event(table_id=TABLE, seq=SNAPSHOT.seq + 1, event=m.Discard(seat=1, tile=T.S8))
    after, text = _pushed(view, [SNAPSHOT, stale])
    assert [s.name for s in after.seats] == [p.name for p in SNAPSHOT.players]
    assert after.seats[1].discards == SNAPSHOT.game.seats[1].discards
    for p in SNAPSHOT.players:
        assert p.name in text
    after, _ = _pushed(view, [SNAPSHOT, stale, newer])
    assert after.seats[1].discards == (*SNAPSHOT.game.seats[1].discards, T.S8)


@pytest.mark.slow
def test_a_snapshot_keeps_an_open_prompt_it_does_not_supersede() -> None:
    snapshot = replace(SNAPSHOT, seq=5)
    view = claim_prompt(sample_view())  # prompt seq 41
    after, _ = _pushed(view, [snapshot])
    assert after.prompt is not None and after.prompt.seq == 41
    after, _ = _pushed(view, [replace(SNAPSHOT, seq=99)])
    assert after.prompt is None


def test_a_tournament_seat_is_told_once_seated_then_once_the_table_opens() -> None:
    """The two TournamentSeated (seated; its table open) make two different toasts, not
    the same line twice."""
    seated = m.TournamentSeated(tournament_id=3, session=1, table_number=2, place=1)
    opened = replace(seated, table_id=15)

    def toasts(app: OfflineApp) -> list[str]:
        return [str(n.message) for n in app._notifications]

    told = _pushed(sample_view(), [seated, opened], check=toasts)
    assert told == [
        "Tournament 3, session 1: table 2, South",
        "Tournament 3, session 1: table 2 is open, South",
    ]
