"""What a player sees and can do at the table, without a server (the real app, fed
through the session's dispatch): the action line, the result that waits for a key, a
board that follows the match's end, the keys that say why they do nothing, the help
beside the board, the seat controls between hands, readable at every size."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from textual.widgets import Static
from tui_harness import OfflineApp, terminal_text, until, widget_text
from tui_sample import claim_prompt, sample_view, turn_prompt

from gbmj.game.wall import Wall, commitment_of
from gbmj_tui.model import MeldModel, TimerView
from gbmj_tui.screens.result import StandingsScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.widgets import ActionLine, HandRow, HelpPanel
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile as T
from protocol.vocabulary import Presence, TableStatus

TABLE = 7
HAND_RESULT = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.HandResult))
MATCH_RESULT = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchResult))
INFO = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]
HAND_START = m.HandStart(
    round_number=1, hand_number=3, dealer=1, seat_winds=(T.N, T.E, T.S, T.W),
    prevailing_wind=T.E, dice=((1, 2), (3, 4)), second_roller=0, break_stack=5,
    commitment="0" * 64,
)  # fmt: skip


class BellApp(OfflineApp):
    """Counts the bells."""

    bells = 0

    def bell(self) -> None:
        self.bells += 1


def _play(view, steps, *, lang="en", size=(100, 32), ascii=False, check=None):
    """Run the app at ``view``; each step is a message to push, a key (str) or a
    callable on the app; return ``check(app)`` (run before the app closes) or the
    app, and the screen after each step."""

    async def go():
        app = BellApp(replace(view, table_id=TABLE), lang=lang, ascii=ascii)
        shots = []
        async with app.run_test(size=size, notifications=True) as pilot:
            await pilot.pause()
            for step in steps:
                if isinstance(step, str):
                    await pilot.press(step)
                elif callable(step):
                    await step(app, pilot)
                else:
                    app.push(step)
                await pilot.pause()
                shots.append(terminal_text(app))
            return (check(app) if check else app), shots

    return asyncio.run(go())


def _event(seq, body):
    return m.Event(table_id=TABLE, seq=seq, event=body)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.slow
def test_the_action_line_says_who_claimed_what_from_whom_and_replaced_flowers() -> None:
    view = replace(sample_view(), seq=40)
    claim = m.Pung(seat=1, tiles=(T.M4,) * 3, claimed_tile=T.M4, from_seat=3)
    steps = [
        _event(41, m.Discard(seat=3, tile=T.M4)),
        _event(42, claim),
        _event(43, m.Flower(seat=2, tile=T.F5)),
    ]
    _, shots = _play(view, steps)
    assert "South Dan discarded 4 Characters" in _flat(shots[0])
    assert "North Bot-Bao punged 4 Characters from South Dan" in _flat(shots[1])
    assert "East Carol set aside flower Plum and drew a replacement" in _flat(shots[2])
    _, shots = _play(view, steps, lang="zh")
    assert "北 Bot-Bao 碰了 南 Dan 的 四万" in _flat(shots[1])
    assert "东 Carol 补花 梅" in _flat(shots[2])


@pytest.mark.slow
def test_timeouts_presence_and_auto_play_are_on_the_action_line_and_the_seats() -> None:
    view = replace(sample_view(me=None), seq=40)
    steps = [
        m.PresenceUpdate(table_id=TABLE, seat=3, presence="offline"),
        m.TimedOut(table_id=TABLE, seat=3, timeouts=1),
        m.PresenceUpdate(table_id=TABLE, seat=3, presence="auto_play"),
    ]
    _, shots = _play(view, steps)  # a spectator sees it all too
    assert "South Dan is offline" in _flat(shots[0]) and "<offline>" in shots[0]
    assert "South Dan ran out of time" in _flat(shots[1])
    assert "<auto-play>" in shots[2]
    mine = [m.PresenceUpdate(table_id=TABLE, seat=0, presence="auto_play"), "a"]
    outbox, shots = _play(replace(sample_view(), seq=40), mine, check=lambda app: app.outbox)
    assert "Auto-play took over your seat: press a to take it back" in _flat(shots[0])
    assert m.AutoPlay(table_id=TABLE, on=False) in outbox  # one key takes it back


def test_h_on_a_hand_under_8_fan_says_why() -> None:
    # 2m3m4m 5p6p7p 2s3s4s 6s7s8s + 9s drawn to pair the 9s: a complete hand of 2 fan
    hand = (T.M2, T.M3, T.M4, T.P5, T.P6, T.P7, T.S2, T.S3, T.S4, T.S6, T.S7, T.S8, T.S9)
    view = replace(sample_view(), hand=hand).with_seat(0, melds=())
    view = turn_prompt(view, drawn=T.S9)
    prompt = view.prompt
    assert prompt is not None
    view = replace(
        view, prompt=replace(prompt, actions=tuple(a for a in prompt.actions if a.kind != "win"))
    )
    _, shots = _play(view, ["h"])
    assert "No win: this hand is" in _flat(shots[0]) and "8 are needed" in _flat(shots[0])
    _, shots = _play(claim_prompt(sample_view()), ["h"], lang="zh")
    assert "不能和" in _flat(shots[0])


@pytest.mark.slow
def test_keys_outside_the_turn_and_the_toggles_say_what_happened() -> None:
    _, shots = _play(sample_view(), ["enter", "w", "x"])
    assert "Not your turn" in _flat(shots[0])
    assert "Auto-win is on" in _flat(shots[1]) and "[auto-win]" in shots[1]
    assert "Auto-pass is on" in _flat(shots[2]) and "[auto-win auto-pass]" in shots[2]


@pytest.mark.slow
def test_a_bell_on_the_players_turn_and_on_a_claim_not_on_an_auto_passed_one() -> None:
    view = replace(sample_view(), seq=40, offer=(3, T.M4))
    turn = m.Prompt(
        table_id=TABLE, seq=41, actions=(m.ActionChoice(kind="discard", tile=T.E),),
        timer="turn", ms_left=15_000,
    )  # fmt: skip
    claim = m.Prompt(
        table_id=TABLE, seq=42, actions=(m.ActionChoice(kind="pass"),), timer="claim_window",
        ms_left=5_000,
    )  # fmt: skip
    bells, _ = _play(view, [claim, turn], check=lambda app: app.bells)
    assert bells == 2
    later = replace(claim, seq=43)
    bells, _ = _play(view, ["x", later], check=lambda app: app.bells)  # auto-pass answers it
    assert bells == 0


@pytest.mark.slow
def test_the_result_waits_for_a_key_and_the_standings_follow_the_last_hand() -> None:
    view = replace(sample_view(), seq=40)

    async def close(app, pilot):
        await pilot.press("enter")
        await pilot.pause()

    on_top, shots = _play(view, [HAND_RESULT, MATCH_RESULT, close], check=lambda a: type(a.screen))
    assert "Final standings" not in shots[1]  # the hand's breakdown first
    assert "Total" in shots[1]
    assert "Final standings" in shots[2] and on_top is StandingsScreen  # after the key


@pytest.mark.slow
def test_unread_results_show_in_the_order_played_then_the_standings() -> None:
    """On auto-play the hands go on under the result: each waits its turn, the oldest
    first, and only the newest tells of the next hand."""
    view = replace(sample_view(), seq=40).with_seat(0, presence=Presence.AUTO_PLAY)
    first = replace(HAND_RESULT, hand_number=1, next_hand_ms=30_000)
    second = replace(HAND_RESULT, hand_number=2, next_hand_ms=30_000)
    steps = [first, _event(90, HAND_START), second, MATCH_RESULT, "enter", "enter"]
    _, shots = _play(view, steps)
    assert "round, hand 1" in _flat(shots[2])
    assert "next hand has started" not in _flat(shots[2]) and "Next hand in" not in shots[2]
    assert "round, hand 2" in _flat(shots[4])
    assert "Final standings" in shots[5]


@pytest.mark.slow
def test_the_players_closing_the_result_is_sent_and_a_new_deal_brings_the_board_back() -> None:
    view = replace(sample_view(), seq=40)
    timed = replace(HAND_RESULT, next_hand_ms=30_000)
    app, shots = _play(view, [timed, "enter"])
    assert m.ResultClosed(table_id=TABLE) in app.outbox
    assert "next hand starts once everyone has closed the result" in _flat(shots[1])
    # the pause passed: the next hand's deal closes the result (the clocks run again)
    on_top, _ = _play(view, [timed, _event(90, HAND_START)], check=lambda a: type(a.screen))
    assert on_top is TableScreen


@pytest.mark.slow
def test_after_the_match_the_board_is_clean_under_the_lobby_names() -> None:
    """The match ended: the table waits again with its lobby seats; the last hand's
    tiles do not stay under names that moved."""
    view = replace(sample_view(), seq=40, status=TableStatus.PLAYING, viewer="Alice")
    waiting = replace(
        INFO,
        table_id=TABLE,
        status="waiting",
        seats=(
            m.LobbySeat(name="Carol", bot=False, ready=False),
            m.LobbySeat(name="Alice", bot=False, ready=False),
            m.LobbySeat(name="Bot-Bao", bot=True, bot_level="easy", ready=True),
            m.LobbySeat(name="Dan", bot=False, ready=True),
        ),
    )
    after, shots = _play(view, [m.TableUpdate(table=waiting)], check=lambda app: app.session.view)
    assert after is not None and after.me == 1 and not after.match_running
    assert [s.name for s in after.seats] == ["Carol", "Alice", "Bot-Bao", "Dan"]
    assert all(not s.discards and not s.melds and not s.flowers for s in after.seats)
    assert "Waiting: four seated, all ready (r)" in shots[0] and "dealer" not in shots[0]
    assert "<ready>" in shots[0] and "<not ready>" in shots[0]


@pytest.mark.slow
def test_between_hands_the_keys_offer_no_ready_or_seats() -> None:
    between = replace(sample_view(), playing=False, status=TableStatus.PLAYING)  # a match runs
    _, shots = _play(between, ["r"])
    keys = shots[0].splitlines()[-2:]
    assert not any("Ready" in line or "Seats" in line for line in keys)
    waiting = replace(sample_view(), playing=False, dice=(), status=TableStatus.WAITING)
    _, shots = _play(waiting, ["r"])
    assert "Ready" in " ".join(shots[0].splitlines()[-2:])


def test_quit_in_a_running_match_warns_first() -> None:
    running, shots = _play(sample_view(), ["ctrl+q"], check=lambda app: app.is_running)
    assert running and "an escape" in _flat(shots[0])


@pytest.mark.slow
def test_enter_on_the_claim_bar_takes_the_highlighted_choice_and_arrows_move_it() -> None:
    def actions(app):
        return [a for a in app.outbox if isinstance(a, m.Action)]

    sent, _ = _play(claim_prompt(sample_view()), ["right", "enter"], check=actions)
    assert [(a.kind, a.tile) for a in sent] == [("chow", T.M3)]  # the second choice
    sent, _ = _play(claim_prompt(sample_view()), ["enter"], check=actions)
    assert [(a.kind, a.tile) for a in sent] == [("chow", T.M2)]


def test_the_selected_tile_is_lifted_with_its_key() -> None:
    text, _ = _play(
        turn_prompt(sample_view()),
        ["3"],
        check=lambda app: widget_text(app.screen.query_one(HandRow)),
    )
    hand = text.split("\n")
    assert hand[0].strip() == "4p"  # the third tile, a row above the others
    assert "4p" not in hand[1] and "2m" in hand[1]
    assert hand[2].split()[:4] == ["1", "2", "3", "4"]  # the keys under the tiles


def test_the_help_sits_beside_the_board() -> None:
    def panel(app):
        help_panel = app.screen.query_one(HelpPanel)
        return help_panel.display, _flat(widget_text(help_panel.query_one(Static)))

    (shown, words), shots = _play(claim_prompt(sample_view()), ["question_mark"], check=panel)
    assert shown and "tile counter" in words
    assert "[Space] Pass" in shots[0] and "claim: West Alice" in shots[0]  # still in sight


def test_80x24_keeps_every_key_and_160x50_grows_the_board() -> None:
    _, small = _play(sample_view(), ["w"], size=(80, 24))
    keys = _flat(" ".join(small[0].splitlines()[-2:]))
    assert "^Q Quit" in keys and "Chat" in keys

    def look(app):
        screen = app.screen
        hand = screen.query_one(HandRow)
        side = screen.query_one("#side-left").region.width
        return hand.big, hand.region.height, side, screen.query_one(ActionLine).lines

    (big, rows, side, lines), _ = _play(sample_view(), ["w"], size=(160, 50), check=look)
    assert big and rows == 5  # big tiles: three rows, the row it lifts to, the keys
    assert side == 48 and lines == 4  # the sides take 30% each


@pytest.mark.slow
def test_ascii_draws_nothing_but_ascii_on_every_table_screen() -> None:
    view = claim_prompt(sample_view())
    view = view.with_seat(1, melds=(MeldModel("kong", None, concealed=True),))
    view = replace(view, unseen=(4,) * 34, timer=TimerView((0,), "claim_window", 5000, 5000))

    async def help_and_chat(app, pilot):
        await pilot.press("question_mark")
        await pilot.press("question_mark")
        app.push(m.Chat(channel="table", table_id=TABLE, sender="Dan", text="hi"))

    _, shots = _play(view, [help_and_chat, "question_mark", HAND_RESULT], ascii=True)
    assert "Total" in shots[-1]  # the result screen too
    for text in shots:
        where = [line for line in text.splitlines() if not line.isascii()]
        assert not where, where


@pytest.mark.slow
def test_the_result_counts_down_to_a_timed_next_hand() -> None:
    timed = replace(HAND_RESULT, next_hand_ms=9_000)
    _, shots = _play(replace(sample_view(), seq=40), [timed])
    assert "Next hand in 9 s" in _flat(shots[0]) or "Next hand in 8 s" in _flat(shots[0])
    assert "once everyone has closed this" in _flat(shots[0])
    _, shots = _play(replace(sample_view(), seq=40), [replace(HAND_RESULT, next_hand_ms=None)])
    assert "Next hand in" not in shots[0]  # not timed: no countdown


@pytest.mark.slow
def test_after_an_extension_fires_the_countdown_runs_on_from_its_new_time() -> None:
    from gbmj_tui.widgets import CountdownBar

    view = replace(turn_prompt(sample_view()), seq=40, extension_armed=True)
    fired = m.TimerExtended(table_id=TABLE, seat=0, ms_left=90_000)

    def left(app):
        return app.screen.query_one(CountdownBar).ms_left

    async def wait(app, pilot):  # a second of the countdown, however long that takes here
        await until(pilot, lambda: left(app) < 89_000)

    first, _ = _play(view, [fired], check=left)
    later, shots = _play(view, [fired, wait], check=left)
    assert 85_000 < first <= 90_000 and later < first  # it counts down at once, no freeze
    assert "West Alice: timer extended by 90 s" in _flat(shots[0])
    assert "extension armed" not in shots[0].splitlines()[0]  # one arming, one use


@pytest.mark.slow
def test_the_result_says_whether_the_wall_is_the_one_promised_before_the_deal() -> None:
    """The wall and salt revealed with the result are checked against the commitment
    announced at the hand's start: a wall changed since, even sent with a commitment of
    its own, is not verified."""
    wall = Wall.from_seed(b"a wall", dealer=1, match_id=88, number=2)  # HAND_RESULT's hand
    start = _event(41, replace(HAND_START, commitment=wall.commitment))
    honest = replace(
        HAND_RESULT, wall_order=tuple(wall.order), salt=wall.salt.hex(), commitment=wall.commitment
    )
    moved = list(wall.order)
    other = next(i for i, t in enumerate(moved) if t != moved[0])
    moved[0], moved[other] = moved[other], moved[0]  # two tiles swapped after the deal
    forged = replace(
        honest, wall_order=tuple(moved), commitment=commitment_of(moved, wall.salt, 88, 2)
    )
    view = replace(sample_view(), seq=40)
    _, shots = _play(view, [start, honest], lang="en")
    assert "Wall verified: the tiles revealed are the wall the server locked in" in _flat(shots[1])
    _, shots = _play(view, [start, forged], lang="zh")
    assert "牌墙未通过验证" in _flat(shots[1])
    _, shots = _play(view, [honest], lang="en")  # no hand start seen: nothing to check against
    assert "The wall was not checked" in _flat(shots[0])


@pytest.mark.slow
def test_a_sealed_duplicate_result_says_the_walls_are_revealed_later() -> None:
    """docs/rules.md §2.14: a duplicate deal still to be played elsewhere ends sealed:
    the player's own tiles and the winner's, the others hidden, no wall to check yet."""
    hidden = (HAND_RESULT.concealed[0], (), (), ())  # the viewer (seat 0) is the winner
    sealed = replace(
        HAND_RESULT,
        concealed=hidden,
        melds=(HAND_RESULT.melds[0], HAND_RESULT.melds[1], (), (None,)),
        wall_order=None,
        salt=None,
    )
    view = replace(sample_view(), seq=40)
    replay, shots = _play(view, [sealed], lang="en", check=_may_replay)
    assert replay is False  # its replay opens later, in the history
    shown = _flat(shots[0])
    assert "The walls are revealed later: this duplicate deal is still to be played" in shown
    assert shown.count("(hidden until every table has played this deal)") == 3
    assert "Wall verified" not in shown and "not checked" not in shown
    _, shots = _play(view, [sealed], lang="zh")
    assert "牌墙稍后公开" in _flat(shots[0])
    replay, shots = _play(view, [HAND_RESULT], lang="en", check=_may_replay)
    assert replay is True  # an ordinary hand: nothing hidden
    assert "hidden until" not in _flat(shots[0]) and "revealed later" not in _flat(shots[0])


def _may_replay(app) -> bool | None:
    return app.screen.check_action("replay", ())


def test_the_first_deal_says_where_the_seats_were_drawn() -> None:
    from gbmj_tui.narrate import event_line

    first = replace(HAND_START, round_number=1, hand_number=1, seat_winds=(T.S, T.W, T.N, T.E))
    line = event_line(sample_view(me=0), first, "en")
    assert line is not None and "seats drawn: you are South" in line.plain
    later = replace(first, round_number=2)
    assert "seats changed: you are South" in event_line(sample_view(me=0), later, "en").plain
    assert "seats" not in event_line(sample_view(me=None), first, "en").plain  # a spectator
    assert "seats" not in event_line(sample_view(me=0), HAND_START, "en").plain  # hand 3
