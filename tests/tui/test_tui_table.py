"""The table screen in Textual's pilot: what it shows at 100x32 and 80x24 in both tile
styles, the hand's selection by keys and mouse, and the claim bar's keys."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pytest
from tui_harness import OfflineApp, TableHost, screen_text, terminal_text, until, widget_text
from tui_sample import claim_prompt, sample_result, sample_view, turn_prompt

from gbmj_tui.model import MeldModel
from gbmj_tui.tiles import TileStyle, face
from gbmj_tui.widgets import HandRow, PromptBar
from gbmj_tui.widgets.fans import fan_total
from gbmj_tui.widgets.keybar import KeyBar
from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import Tile as T
from protocol.vocabulary import ActionKind

SIZES = [(100, 32), (80, 24)]
LAYOUT_SIZES = [(80, 24), (120, 40), (200, 60)]
STYLES = [(TileStyle.CJK, "zh"), (TileStyle.ASCII, "en")]


def _run(view, size, style=TileStyle.CJK, lang="zh", keys=(), check=None):
    async def go():
        app = TableHost(view, style, lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            return check(app, pilot) if check else (app, screen_text(app))

    return asyncio.run(go())


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("style", "lang"), STYLES)
def test_table_shows_hand_counts_discards_and_claim(size, style, lang) -> None:
    view = claim_prompt(sample_view())
    _app, text = _run(view, size, style, lang)
    lines = text.split("\n")
    assert len(lines) == size[1]
    # the player's own hand, in order, on one row
    hand = " ".join(face(t, style) for t in view.hand).rstrip()
    assert any(hand in line for line in lines), text
    # the others' hidden-tile counts and names; the player's own count is not shown
    for name in ("Dan", "Carol", "Bot-Bao"):
        assert name in text
    assert text.count("x13") == 1 and text.count("x10") == 2
    # every discard pool: Dan's last discard is marked
    dan = "".join(face(t, style) for t in (T.N, T.P2, T.M8, T.M4))
    assert dan.replace(" ", "") in text.replace(" ", "")
    assert face(T.M4, style) + "*" in text
    # the claim bar names the tile and the discarder, with one key per choice
    bar = next(line for line in lines if "[Space]" in line)
    assert "Dan" in bar and face(T.M4, style) in bar
    if lang == "zh":
        assert "[1] 吃 二三四万" in bar and "[2] 吃 三四五万" in bar and "过" in bar
        assert "南风西局" in text
    else:
        assert "[1] Chow 2m 3m 4m" in bar and "[2] Chow 3m 4m 5m" in bar and "Pass" in bar
        assert "South round, hand 3" in text
        assert text.isascii() or all(ord(c) < 0x2E80 for c in text), "no CJK in ASCII mode"
    assert "[h]" not in bar and "[p]" not in bar  # only the legal choices


@pytest.mark.parametrize("size", SIZES)
def test_table_shows_melds_and_flowers(size) -> None:
    _app, text = _run(sample_view(), size, TileStyle.ASCII, "en")
    assert " 3s  4s  5s <" in text  # Carol's chow from her left
    # Bot-Bao's concealed kong, face down: four tile backs, or a short label in a narrow
    # side panel (80 columns)
    assert ("####" * 4 if size[0] >= 100 else "#" * 8) in text
    assert "Red Red Red ^" in text  # the player's pung from the opposite seat
    assert " f5  f6 " in text


@pytest.mark.slow
def test_a_side_with_many_melds_writes_them_as_short_labels_at_80x24() -> None:
    view = sample_view()
    melds = (
        MeldModel("chow", T.S3, claimed_from=1, claimed_tile=T.S4),
        MeldModel("pung", T.P2, claimed_from=2, claimed_tile=T.P2),
        MeldModel("chow", T.M6, claimed_from=1, claimed_tile=T.M6),
    )
    view = view.with_seat(3, melds=melds)
    _app, text = _run(view, (80, 24), TileStyle.CJK, "zh")
    assert "三四五条上 二二二饼对" in text  # Dan (left): two a line, not one
    _app, text = _run(view, (120, 40), TileStyle.CJK, "zh")
    assert "三条四条五条上" in text  # room enough for the tiles themselves


@pytest.mark.parametrize("size", LAYOUT_SIZES)
@pytest.mark.parametrize(("style", "lang"), STYLES)
def test_each_seat_sits_on_its_side_with_its_pool(size, style, lang) -> None:
    """The seat on the left, across and on the right each in a box of its own on its
    side of the table: its header (wind, name, score), melds, and pool under them; the
    player's own pool in the middle, above their hand."""

    def check(app, pilot):
        screen = app.screen
        found = {}
        for name in ("left", "top", "right"):
            area = screen.query_one(f"#area-{name}")
            seat, pool = screen.query_one(f"#seat-{name}"), screen.query_one(f"#pool-{name}")
            found[name] = (area.region, seat.region, pool.region, widget_text(seat))
        found["bottom"] = screen.query_one("#pool-bottom").region
        found["own"] = widget_text(screen.query_one("#area-bottom")).split("\n")[0]
        found["hand"] = screen.query_one(HandRow).region
        found["pools"] = {n: widget_text(screen.query_one(f"#pool-{n}")) for n in ("left", "right")}
        return found

    found = _run(sample_view(), size, style, lang, check=check)
    wind = {"zh": ("南", "东", "北"), "en": ("S", "E", "N")}[lang]
    names = ("Dan", "Carol", "Bot-Bao")
    for name, w, who in zip(("left", "top", "right"), wind, names, strict=True):
        area, seat, pool, header = found[name]
        assert area.contains_region(seat) and area.contains_region(pool), name
        assert seat.bottom <= pool.y  # the pool under the seat's header and melds
        assert f"[{w}] {who}" in header
    left, top, right = (found[n][0] for n in ("left", "top", "right"))
    assert left.right <= top.x and top.right <= right.x  # left, across, right
    assert top.bottom <= found["bottom"].y < found["hand"].y  # the player's pool: middle
    assert f"[{'西' if lang == 'zh' else 'W'}] Alice" in found["own"]  # on its box's edge
    assert left.x == 0 and right.right == size[0]
    # the left seat's last discard is marked; Bot-Bao's seven discards: six, then one
    marked = [r for r in found["pools"]["left"].split("\n") if face(T.M4, style).strip() in r]
    assert len(marked) == 1 and marked[0].endswith("*")
    faces = [re.split(r"[\s│|*]+", r) for r in found["pools"]["right"].split("\n")]
    rows = [len([f for f in row if f]) for row in faces if any(c.isalnum() for c in "".join(row))]
    assert rows == ([6, 1] if size[0] >= 100 else [5, 2])


def test_a_long_pool_keeps_its_newest_rows_when_its_place_is_low() -> None:
    discards = tuple(T(i % 27) for i in range(40))  # eight rows of five at 80 columns
    view = sample_view().with_seat(2, discards=discards)  # Carol, across

    def check(app, pilot):
        pool = app.screen.query_one("#pool-top")
        return pool.region.height, widget_text(pool)

    height, text = _run(view, (80, 24), TileStyle.ASCII, "en", check=check)
    lines = text.split("\n")
    assert height < 9  # the place cannot hold eight rows
    assert lines[0].strip().startswith("+")  # says how many older tiles are hidden
    assert lines[-1].split()[-1] == T(39 % 27).notation  # the newest discard still shows


def test_spectator_sees_no_hand_and_every_count() -> None:
    _app, text = _run(sample_view(me=None), (100, 32), TileStyle.ASCII, "en")
    assert "Spectating" in text
    assert text.count("####x") == 4  # all four seats show only a count
    assert "[1]" not in text  # no hand row


@pytest.mark.slow
def test_before_the_first_deal_the_status_line_says_the_match_waits() -> None:
    waiting = replace(sample_view(), playing=False, dice=(), wall_count=0, hand=(), drawn=None)
    _app, text = _run(waiting, (100, 32), TileStyle.ASCII, "en")
    assert "Waiting: four seated, all ready" in text.splitlines()[0]
    assert "round, hand" not in text.splitlines()[0]
    _app, text = _run(sample_view(), (100, 32), TileStyle.ASCII, "en")
    assert "round, hand" in text.splitlines()[0]  # a dealt hand shows its round


@pytest.mark.slow
def test_hand_selection_by_arrow_and_number_keys_then_enter_discards() -> None:
    view = turn_prompt(sample_view())  # 10 tiles + drawn 5p; the cursor starts on it

    def check(app, pilot):
        hand = app.screen.query_one(HandRow)
        return hand.cursor, hand.selected_tile, list(app.sent)

    assert _run(view, (100, 32), check=check) == (10, T.P5, [])
    assert _run(view, (100, 32), keys=["left", "left"], check=check)[:2] == (8, T.S7)
    assert _run(view, (100, 32), keys=["right"], check=check)[:2] == (0, T.M2)  # wraps
    assert _run(view, (100, 32), keys=["3"], check=check)[:2] == (2, T.P4)
    assert _run(view, (100, 32), keys=["0"], check=check)[:2] == (9, T.E)
    assert _run(view, (100, 32), keys=["3", "enter"], check=check)[2] == [
        ActionChoice(kind=ActionKind.DISCARD, tile=T.P4)
    ]
    # the selected tile's own key again discards it
    assert _run(view, (100, 32), keys=["4", "4"], check=check)[2] == [
        ActionChoice(kind=ActionKind.DISCARD, tile=T.P6)
    ]
    assert _run(view, (80, 24), keys=["enter"], check=check)[2] == [
        ActionChoice(kind=ActionKind.DISCARD, tile=T.P5)
    ]


@pytest.mark.slow
def test_hand_cannot_discard_without_a_turn_prompt_and_says_why() -> None:
    def check(app, pilot):
        return app.screen.query_one(HandRow).cursor, list(app.sent), screen_text(app)

    keys = ["left", "enter", "3"]
    cursor, sent, text = _run(sample_view(), (100, 32), TileStyle.ASCII, "en", keys, check)
    assert sent == [] and cursor == 0  # the hand takes no key outside the player's turn
    assert "Not your turn" in text  # the action line says why the keys did nothing


@pytest.mark.slow
def test_mouse_click_selects_then_discards() -> None:
    view = turn_prompt(sample_view())

    async def go():
        app = TableHost(view)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            hand = app.screen.query_one(HandRow)
            x = hand.x_of(1) + 1
            await pilot.click(HandRow, offset=(x, 0))
            await pilot.pause()
            selected = hand.selected_tile
            await pilot.pause(0.3)  # a second click, not a double click
            await pilot.click(HandRow, offset=(x, 0))
            await pilot.pause()
            return selected, list(app.sent)

    assert asyncio.run(go()) == (T.M3, [ActionChoice(kind=ActionKind.DISCARD, tile=T.M3)])


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("1", ActionChoice(kind=ActionKind.CHOW, tile=T.M2)),
        ("2", ActionChoice(kind=ActionKind.CHOW, tile=T.M3)),
        ("space", ActionChoice(kind=ActionKind.PASS)),
    ],
)
@pytest.mark.slow
def test_claim_bar_keys_send_the_choice(key, expected) -> None:
    view = claim_prompt(sample_view())

    def check(app, pilot):
        return list(app.sent), app.screen.query_one(PromptBar).prompt

    sent, prompt_after = _run(view, (100, 32), keys=[key], check=check)
    assert sent == [expected]
    assert prompt_after is None  # one answer per prompt


def test_claim_bar_ignores_keys_of_choices_not_offered() -> None:
    view = claim_prompt(sample_view())
    sent = _run(view, (100, 32), keys=["p", "h", "3", "g"], check=lambda app, _: list(app.sent))
    assert sent == []


@pytest.mark.slow
def test_self_drawn_win_key_on_own_turn() -> None:
    view = turn_prompt(sample_view())
    sent = _run(view, (100, 32), keys=["h"], check=lambda app, _: list(app.sent))
    assert sent == [ActionChoice(kind=ActionKind.WIN)]


def test_redraw_after_an_event_and_resize() -> None:
    from gbmj_tui.reducers import apply_event

    async def go():
        app = TableHost(sample_view(), TileStyle.ASCII, "en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            view = apply_event(app.table.view, "discard", seat=1, tile=T.S8)
            app.table.show(view)
            await pilot.pause()
            after_event = screen_text(app)
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            return after_event, screen_text(app)

    after_event, resized = asyncio.run(go())
    assert " 8s *" in after_event and " 4m *" not in after_event
    assert len(resized.split("\n")) == 24 and " 8s *" in resized
    assert max(len(line) for line in resized.split("\n")) <= 80


def test_table_redraws_a_new_hand_state() -> None:
    view = replace(sample_view(), wall_count=12)
    _app, text = _run(view, (100, 32), TileStyle.ASCII, "en")
    assert "Wall 12" in text


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("style", "lang"), STYLES)
def test_result_screen_reveals_hands_fans_and_points(size, style, lang) -> None:
    from gbmj_tui.screens.result import ResultScreen

    view = sample_result(sample_view())

    async def go():
        app = TableHost(view, style, lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.push_screen(ResultScreen(view, style, lang))
            await pilot.pause()
            text = screen_text(app)
            await pilot.press("enter")
            await pilot.pause()
            return text, type(app.screen).__name__

    text, after = asyncio.run(go())
    assert after == "TableScreen"  # Enter closes the result
    # the winning tile set apart after its name ("<" marks a chow from the left only)
    won = {"zh": "和张 " + face(T.P6, style), "en": "won on " + face(T.P6, style)}
    assert won[lang] in text
    assert "+34" in text and "-18" in text
    if lang == "zh":
        assert "混一色" in text and "Half Flush" not in text
        assert "东 Carol 和牌" in text and "Dan 点炮" in text and "合计" in text
    else:
        assert "Half Flush" in text
        assert "East Carol wins" in text and "on the discard of Dan" in text and "Total" in text
        assert "8-fan minimum: met (without flowers)" in text
        assert "混一色" not in text  # English names in English
    # the concealed kong is shown face up once the hand is over
    assert (face(T.P9, style) * 2) in text.replace("####", "").replace("〓〓", "")


def _long_result(fans: int = 3):
    """The sample result with coins and fees on every seat's line (its longest lines)
    and, with ``fans`` past three, more fans: the first of the rules' fans."""
    from gbmj_tui.model import FanLine
    from protocol.fans import FANS

    view = sample_result(sample_view())
    r = view.result
    more = tuple(FanLine(f.id, 1) for f in FANS[: max(fans - 3, 0)])
    coins, fees = (-80, -80, 340, -180), (5, 5, 5, 5)
    return replace(view, result=replace(r, fans=(*more, *r.fans), coins=coins, fees=fees))


def _result_on(view, size, style, lang, keys=()):
    """What the terminal shows of the result (the countdown running), then after
    ``keys``; and the result box's lower edge's words each time."""
    from gbmj_tui.screens.result import ResultScreen

    async def go():
        app = TableHost(view, style, lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.push_screen(ResultScreen(view, style, lang, next_hand_ms=30_000))
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            box = app.screen.query_one("#result-box")
            seen = [(terminal_text(app), str(box.border_subtitle))]
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            seen.append((terminal_text(app), str(box.border_subtitle)))
            return seen

    return asyncio.run(go())


@pytest.mark.slow
@pytest.mark.parametrize(("style", "lang"), STYLES)
def test_at_80x24_the_whole_result_is_on_screen(style, lang) -> None:
    """At 80x24, with coins on every seat's line and seven fans: the winner, every
    seat's points and score, the fans with their total and the 8-fan check, the wall,
    the countdown and the key to go on are all on the terminal (drawn, not only laid
    out below the fold), and nothing says there is more below."""
    view = _long_result(fans=7)  # seven fans: many a hand has fewer
    (shown, edge), _ = _result_on(view, (80, 24), style, lang)
    lines = shown.split("\n")
    assert len(lines) == 24
    total, base = fan_total(view.result.fans), fan_total(view.result.fans, flowers=False)
    words = {
        "zh": [
            "东 Carol 和牌",
            f"合计 {total}",
            f"起和8番: 达到 (不计花牌) {base}",
            "牌墙已验证",
            "所有人都关闭结果后",
            "Enter  回到牌桌",
        ],
        "en": [
            "East Carol wins",
            f"Total {total}",
            f"8-fan minimum: met (without flowers) {base}",
            "Wall verified",
            "once everyone has closed this",
            "Enter  Back to the table",
        ],
    }[lang]
    for word in words:
        assert any(word in line for line in lines), (word, shown)
    score = {"zh": "(分数 {s})", "en": "(score {s})"}[lang]
    for name, points, now in (
        ("Alice", -8, 1192),
        ("Bot-Bao", -8, -408),
        ("Carol", 34, 834),
        ("Dan", -18, -1618),
    ):
        seat = [line for line in lines if f"{name}   {points:+d}   " in line]
        assert seat and score.format(s=now) in seat[0], (name, shown)
    fans = {
        "zh": ["混一色 6", "幺九刻 1x2", "花牌 1x2"],
        "en": ["Half Flush 6", "Pung of Terminals or Honors 1x2", "Flower Tiles 1x2"],
    }
    assert all(fan in shown for fan in fans[lang]), shown
    assert edge == "", edge


@pytest.mark.slow
def test_a_result_longer_than_the_terminal_says_more_lies_below() -> None:
    """Twelve fans at 80x20: the box's edge says there is more below and which keys
    go there; at the end (End) the total and the wall show and the edge says no more."""
    view = _long_result(fans=12)
    (top, edge), (end, after) = _result_on(view, (80, 20), TileStyle.ASCII, "en", ["end"])
    assert "more below: Down, PgDn, End" in top and edge == "more below: Down, PgDn, End"
    assert "Wall verified" not in top
    total = fan_total(view.result.fans)
    assert f"Total {total}" in end and "Wall verified" in end
    assert after == "" and "more below" not in end


def _offline(view, keys, lang="en"):
    async def go():
        app = OfflineApp(replace(view, table_id=7), lang=lang)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            sent = [
                (a.kind, a.tile, a.table_id, a.seq) for a in app.outbox if isinstance(a, m.Action)
            ]
            return sent, screen_text(app)

    return asyncio.run(go())


def test_app_sends_the_action_for_the_prompt() -> None:
    sent, _ = _offline(claim_prompt(sample_view()), ["2"])
    assert sent == [("chow", T.M3, 7, 41)]


@pytest.mark.slow
def test_auto_pass_answers_a_claim_and_shows_in_the_status_line() -> None:
    sent, text = _offline(claim_prompt(sample_view()), ["x"])
    assert sent == [("pass", None, 7, 41)]
    assert "[auto-pass]" in text.split("\n")[0]


@pytest.mark.slow
def test_auto_win_declares_an_offered_win() -> None:
    sent, _ = _offline(turn_prompt(sample_view()), ["w"])
    assert sent == [("win", None, 7, 42)]
    sent, _ = _offline(turn_prompt(sample_view()), ["x"])  # auto-pass: not a claim
    assert sent == []


def test_spectator_has_no_seat_controls() -> None:
    _, text = _offline(sample_view(me=None), ["x", "w"])
    footer = text.split("\n")[-1]
    assert "Auto-win" not in footer and "Chat" in footer
    assert "[auto" not in text


@pytest.mark.slow
def test_the_key_bar_offers_no_item_the_table_refuses() -> None:
    """A tournament's table refuses items: its key bar offers neither the timer
    extension (e) nor the tile counter (t), and the keys send nothing; an untimed free
    table offers the counter but no extension (no turn runs out there)."""
    free = sample_view()
    tables = {
        "free": free,
        "tournament": replace(free, tournament=3),
        "untimed": replace(free, timer_ms=None),
    }

    async def go(view):
        app = TableHost(view, TileStyle.ASCII, "en")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            bar = widget_text(app.table.query_one(KeyBar))
            await pilot.press("e", "t")
            await pilot.pause()
            return bar, list(app.requests)

    seen = {name: asyncio.run(go(view)) for name, view in tables.items()}
    bar, requests = seen["free"]
    assert " e  Extension" in bar and " t  Counter" in bar
    assert any(isinstance(r, m.UseTileCounter) for r in requests)
    bar, requests = seen["tournament"]
    assert "Extension" not in bar and "Counter" not in bar and " c  Chat" in bar
    assert not any(isinstance(r, m.UseTileCounter | m.ArmTimerExtension) for r in requests)
    bar, _requests = seen["untimed"]
    assert "Extension" not in bar and " t  Counter" in bar
