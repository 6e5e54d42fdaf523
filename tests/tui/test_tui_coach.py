"""The coach at the table in Textual's pilot: the hint panel on ``i`` (kept open with
``I``), what it shows at a turn and at a claim, nowhere for a spectator or at a stake
table; the fan reference on ``f``; snapshots of the panel at 80x24 and 120x40 in both
languages (rewrite them with GBMJ_UPDATE_SNAPSHOTS=1 after an intended change)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path

import pytest
from tui_harness import OfflineApp, TableHost, terminal_text, widget_text
from tui_sample import claim_prompt, sample_view, turn_prompt

from gbmj.coach import hints
from gbmj.game.views import make_view
from gbmj_tui.model import MeldModel, TableView
from gbmj_tui.screens.fans import FanReference, matches
from gbmj_tui.tiles import TileStyle, tiles_label
from gbmj_tui.widgets.coach import CoachPanel, coach_allowed, sight_of_view
from protocol import messages as m
from protocol.fans import FAN_BY_ID
from protocol.tiles import Tile as T

SNAPSHOTS = Path(__file__).parent / "snapshots"
FREE = m.TableSettings(
    name="t", stake=0, timers=m.TimerSettings(on=True, first_discard=30, turn=15, claim_window=5),
    rounds=1, bots_allowed=True,
)  # fmt: skip


def _run(view: TableView, keys=(), check=None, lang="en", size=(120, 40)):
    async def go():
        app = TableHost(view, TileStyle.ASCII if lang == "en" else TileStyle.CJK, lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            return check(app, pilot)

    return asyncio.run(go())


def _panel(app: TableHost) -> CoachPanel:
    return app.table.query_one(CoachPanel)


def _words(panel: CoachPanel) -> str:
    """The panel's whole text (scrolled or not) in one line."""
    return " ".join(panel.text.plain.split())


def test_the_panel_shows_each_discard_computed_from_the_players_view() -> None:
    view = turn_prompt(sample_view())
    seen = sight_of_view(view)
    assert seen is not None and seen.size == 14
    expected = hints(seen)

    def check(app, pilot):
        panel = _panel(app)
        assert panel.display
        text = _words(panel)
        first = expected.discards[0]
        label = tiles_label([first.tile], TileStyle.ASCII)
        assert f"discard {label} → {first.useful_kinds} kinds, {first.useful_tiles} tiles" in text
        assert "Plans toward 8 fan" in text
        return text

    _run(view, ("i",), check)
    # ``i`` again closes it.
    assert _run(view, ("i", "i"), lambda app, pilot: _panel(app).display) is False


def test_the_view_counts_every_pool_and_the_others_exposed_melds_only() -> None:
    view = sample_view()
    seen = sight_of_view(view)
    assert seen is not None and seen.size == 13
    # 4m: one in Dan's pool. 9p: one in Bot-Bao's pool. Bot-Bao's face-down kong: unseen.
    assert seen.unseen[T.M4] == 3 and seen.unseen[T.P9] == 3
    # Carol's chow 3s4s5s is seen; the player's own pung of C and two 5s in hand too.
    assert seen.unseen[T.S3] == 4 - 1 and seen.unseen[T.C] == 1 and seen.unseen[T.S5] == 1
    assert seen.flowers == 1 and seen.seat_wind == T.W and seen.prevailing_wind == T.S


def test_a_flower_drawn_and_not_yet_set_aside_gives_no_hints_and_no_crash() -> None:
    view = turn_prompt(sample_view(), drawn=T.F7)
    assert sight_of_view(view) is None
    shown = _run(view, ("i",), lambda app, pilot: (_panel(app).display, _panel(app).text.plain))
    assert shown[0] and "No hints now" in shown[1]


def test_a_ready_hand_lists_its_waits_and_warns_when_none_reaches_8() -> None:
    # 3m 444m 5m 66m with a pung of 8m and a chow 456s: ready, no wait reaches 8 fan.
    me = replace(
        sample_view().seats[0],
        melds=(
            MeldModel("pung", T.M8, claimed_from=2, claimed_tile=T.M8),
            MeldModel("chow", T.S4, claimed_from=1, claimed_tile=T.S5),
        ),
        flowers=(),
    )
    view = replace(
        sample_view(),
        seats=(me, *sample_view().seats[1:]),
        hand=(T.M3, T.M4, T.M4, T.M4, T.M5, T.M6, T.M6),
    )

    def check(app, pilot):
        text = _words(_panel(app))
        assert "Ready: each winning tile" in text
        assert "No winning tile reaches 8 fan" in text
        assert "<8" in text and "8+" not in text
        return text

    _run(view, ("i",), check)


def test_at_a_claim_the_panel_says_what_each_claim_does() -> None:
    view = claim_prompt(sample_view())

    def check(app, pilot):
        text = _words(_panel(app))
        assert "If you claim" in text and "Chow 2m 3m 4m: shanten 2 → 1" in text
        return text

    _run(view, ("i",), check)


def _solo(view: TableView) -> TableView:
    """The same table with bots in the three other seats."""
    seats = tuple(replace(s, bot=s.seat != view.me) for s in view.seats)
    return replace(view, seats=seats)


def test_solo_play_has_hints_whatever_the_stake() -> None:
    view = replace(_solo(turn_prompt(sample_view())), stake=1)
    assert coach_allowed(view)
    assert _run(view, ("i",), lambda app, pilot: _panel(app).display) is True


@pytest.mark.parametrize(
    "view",
    [
        sample_view(me=None),  # a spectator
        replace(turn_prompt(sample_view()), stake=10),  # a stake table with other players
        replace(_solo(turn_prompt(sample_view())), settings=replace(FREE, coach=False)),  # off
    ],
    ids=["spectator", "stake", "off"],
)
@pytest.mark.slow
def test_no_hints_for_a_spectator_at_a_stake_table_or_when_the_owner_turned_them_off(
    view,
) -> None:
    assert not coach_allowed(view)

    def check(app, pilot):
        keys = {b.binding.key for b in app.table.active_bindings.values()}
        return _panel(app).display, "i" in keys

    assert _run(view, ("i", "I"), check) == (False, False)


@pytest.mark.slow
def test_kept_open_the_panel_stays_after_a_discard_else_it_closes() -> None:
    view = turn_prompt(sample_view())

    def discard(keys):
        def check(app, pilot):
            async def go():
                await pilot.press("enter")  # discard the selected tile
                await pilot.pause()
                return app.sent, _panel(app).display

            return go()

        async def run():
            app = TableHost(view, TileStyle.ASCII, "en")
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                for key in keys:
                    await pilot.press(key)
                await pilot.pause()
                return await check(app, pilot)

        return asyncio.run(run())

    sent, shown = discard(("i",))
    assert sent and sent[0].kind == "discard" and not shown
    sent, shown = discard(("I",))
    assert sent and shown


def test_a_new_prompt_updates_the_open_panel() -> None:
    view = turn_prompt(sample_view())

    async def go():
        app = TableHost(view, TileStyle.ASCII, "en")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("I")
            before = _words(_panel(app))
            claim = claim_prompt(sample_view())
            app.table.show(claim, prompted=True)
            await pilot.pause()
            return before, _words(_panel(app))

    before, after = asyncio.run(go())
    assert "discard" in before and "If you claim" not in before
    assert "If you claim" in after


@pytest.mark.slow
def test_the_fan_reference_searches_both_languages_and_shows_an_example() -> None:
    assert matches(FAN_BY_ID[49], "混一") and matches(FAN_BY_ID[49], "HALF flush")
    assert not matches(FAN_BY_ID[49], "pure")

    async def go():
        app = TableHost(turn_prompt(sample_view()), TileStyle.ASCII, "en")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("f")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, FanReference)
            assert len(screen.found) == 82
            for key in "half flush":
                await pilot.press(key if key != " " else "space")
            await pilot.pause()
            found = [f.id for f in screen.found]
            detail = terminal_text(app)
            await pilot.press("escape")
            await pilot.pause()
            return found, detail, app.screen is app.table

    found, detail, back = asyncio.run(go())
    assert found == [49]
    assert "Half Flush" in detail and "混一色" in detail and "Example:" in detail
    assert "Excludes: nothing" in detail and "8-fan minimum" in detail
    assert back

    async def chinese():
        app = TableHost(turn_prompt(sample_view()), TileStyle.CJK, "zh")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("f")
            await pilot.pause()
            app.screen.query_one("#fan-search").value = "大四喜"
            await pilot.pause()
            return [f.id for f in app.screen.found], terminal_text(app)

    found, text = asyncio.run(chinese())
    assert found == [1] and "不计:" in text and "三风刻" in text and "碰碰和" in text


def _snapshot(which: str, size: tuple[int, int], lang: str) -> str:
    view = turn_prompt(sample_view()) if which == "turn" else claim_prompt(sample_view())

    async def go() -> str:
        app = OfflineApp(view, lang=lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("i")
            await pilot.pause()
            return terminal_text(app)

    import re

    return re.sub(r"\d+\.\d ?(s|秒)", r"#.#\1", asyncio.run(go()))


@pytest.mark.slow
@pytest.mark.parametrize("which", ["turn", "claim"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_panel_matches_its_snapshots(which, size, lang) -> None:
    path = SNAPSHOTS / f"coach-{which}-{size[0]}x{size[1]}-{lang}.txt"
    text = _snapshot(which, size, lang)
    if os.environ.get("GBMJ_UPDATE_SNAPSHOTS"):
        path.write_text(text, "utf-8")
    assert text == path.read_text("utf-8")


@pytest.mark.slow
def test_the_owner_chooses_hints_in_the_settings_dialog() -> None:
    from textual.app import App
    from textual.widgets import Select

    from gbmj_tui.screens.dialogs import SettingsDialog, TableRequest
    from gbmj_tui.widgets.toggle import Toggle

    async def choose(stake: int, hints_on: bool) -> m.TableSettings:
        answers: list[object] = []

        class Host(App[None]):
            def on_mount(self) -> None:
                self.push_screen(SettingsDialog("en"), answers.append)

        app = Host()
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            app.screen.query_one("#t-stake", Select).value = stake
            app.screen.query_one("#t-coach", Toggle).value = hints_on
            await pilot.click("#create")
            await pilot.pause()
        (request,) = answers
        assert isinstance(request, TableRequest)
        return request.settings

    assert asyncio.run(choose(0, False)).coach is False
    assert asyncio.run(choose(0, True)).coach is True
    # A stake table never asks for hints (the server would refuse them).
    assert asyncio.run(choose(10, True)).coach is None


def test_the_replay_steps_to_each_costly_discard_with_what_it_cost() -> None:
    from textual.app import App
    from tui_sample import NAMES, hand_log

    from gbmj.bots import make_bot
    from gbmj.bots.arena import play_hand
    from gbmj_tui.messages import Replied, Requested
    from gbmj_tui.screens.replay import ReplayScreen

    # An easy bot's seat among hard bots: its noise costs it a discard or two.
    bots = [make_bot("easy", 1), *(make_bot("hard", s) for s in (2, 3, 4))]
    log = hand_log(play_hand(bots, b"review-1", dealer=1))

    class Host(App[None]):
        def on_mount(self) -> None:
            screen = ReplayScreen(log.hand_id, me=NAMES[0], lang="en")
            screen.start_costly = True  # as the result's c opens it
            self.push_screen(screen)

        def on_requested(self, message: Requested) -> None:
            message.reply_to.post_message(Replied(message.request, log))

    async def go():
        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen) and screen.replay is not None
            seen = []
            for key in ("", "c"):  # opened at the first; c goes on to the next
                if key:
                    await pilot.press(key)
                await pilot.pause()
                view = screen.replay.view(screen.index, face_up=False)
                tiles = len(view.hand) + (view.drawn is not None)
                size = tiles + 3 * len(view.seats[0].melds)
                line = " ".join(widget_text(screen.query_one("#replay-line")).split())
                seen.append((screen.index, size, line))
            return seen, screen.costly

    seen, costly = asyncio.run(go())
    assert costly, "the easy bot made no costly discard in this hand"
    for index, size, line in seen:
        assert size == 14  # the moment of the decision: the player's turn
        assert line.startswith("Turn ") and "you discarded" in line
        assert index in [step for step, _ in costly]


def test_the_client_reads_the_same_sight_as_the_engine_at_every_step() -> None:
    """Every moment of a real hand, as each player's client saw it (the replay feeds the
    live reducers the events each seat was sent): the coach's reading of that view is the
    engine's reading of the seat's own view. So the panel uses no more than the view."""
    from tui_sample import NAMES, bot_hand, hand_log

    from gbmj.coach import sight_of
    from gbmj.game.hand_state import HandState
    from gbmj.replay import hand_from_log
    from gbmj_tui.replay import replay_hand, steps_of_events

    played = bot_hand()
    hand = hand_from_log(hand_log(played))
    # The event count at the end of each replay step, and the engine after each action.
    ends, total = [], 0
    for group in steps_of_events(played.events):
        total += len(group)
        ends.append(total)
    compared = 0
    for seat in range(4):
        replay = replay_hand(hand, NAMES[seat], "en", hand_log(played).match_id)
        state = HandState(played.wall)
        for s, action in played.log:
            assert action is not None
            state.apply(s, action)
            if state.ended or len(state.events) not in ends:
                continue
            step = ends.index(len(state.events))
            client = sight_of_view(replay.view(step, face_up=False))
            engine = sight_of(make_view(state, seat))
            if client is None:  # a flower waiting for its replacement
                continue
            assert client.concealed == engine.concealed
            assert client.unseen == engine.unseen, (seat, step)
            assert client.flowers == engine.flowers
            assert [m.tiles for m in client.melds] == [m.tiles for m in engine.melds]
            compared += 1
    assert compared > 100


def test_the_result_asks_for_the_replay_at_the_costly_discards() -> None:
    from textual.app import App
    from tui_sample import sample_result

    from gbmj_tui.messages import ReplayAsked
    from gbmj_tui.screens.result import ResultScreen

    asked: list[ReplayAsked] = []

    class Host(App[None]):
        def __init__(self, view: TableView) -> None:
            super().__init__()
            self.view = view

        def on_mount(self) -> None:
            self.push_screen(ResultScreen(self.view, TileStyle.ASCII, "en"))

        def on_replay_asked(self, message: ReplayAsked) -> None:
            asked.append(message)

    async def go(view: TableView) -> None:
        async with Host(view).run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()

    asyncio.run(go(sample_result(sample_view())))
    assert [(a.hand_id, a.costly) for a in asked] == [(412, True)]
    asyncio.run(go(sample_result(sample_view(me=None))))  # a spectator played no discard
    asyncio.run(go(replace(sample_result(sample_view()), stake=10)))  # no coach at stake
    assert len(asked) == 1
