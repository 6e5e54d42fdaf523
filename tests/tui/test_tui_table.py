"""The table screen in Textual's pilot: what it shows at 100x32 and 80x24 in both tile
styles, the hand's selection by keys and mouse, and the claim bar's keys."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from rich.cells import cell_len
from tui_harness import OfflineApp, TableHost, screen_text, widget_text
from tui_sample import claim_prompt, sample_result, sample_view, turn_prompt

from gbmj_tui.model import Choice, MeldView
from gbmj_tui.tiles import TileStyle, face
from gbmj_tui.widgets import HandRow, PromptBar
from protocol import messages as m
from protocol.tiles import Tile as T

SIZES = [(100, 32), (80, 24)]
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


def test_narrow_side_panels_write_melds_as_short_labels() -> None:
    view = sample_view()
    view = view.with_seat(3, melds=(MeldView("chow", T.S3, claimed_from=1, claimed_tile=T.S4),))
    _app, text = _run(view, (80, 24), TileStyle.CJK, "zh")
    assert "三四五条上" in text  # Dan (left, 15 columns): his chow from his left


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("style", "lang"), STYLES)
def test_the_four_pools_sit_in_the_centre_under_their_winds(size, style, lang) -> None:
    """Each seat's pool in the centre, on its side (left, top, right, bottom), labelled
    with the seat's wind; the seats' panels around it."""

    def check(app, pilot):
        screen = app.screen
        places = {
            name: (screen.query_one(f"#seat-{name}").region, screen.query_one(f"#pool-{name}"))
            for name in ("left", "top", "right")
        }
        centre = screen.query_one("#centre").region
        pools = {n: screen.query_one(f"#pool-{n}") for n in ("left", "top", "right", "bottom")}
        return places, centre, {n: (p.region, widget_text(p)) for n, p in pools.items()}

    places, centre, pools = _run(sample_view(), size, style, lang, check=check)
    wind = {"zh": ("南", "东", "北", "西"), "en": ("S", "E", "N", "W")}[lang]
    for name, w in zip(("left", "top", "right", "bottom"), wind, strict=True):
        region, text = pools[name]
        assert centre.contains_region(region), name
        assert f"[{w}]" in text.split("\n")[0]  # the label: the seat's wind, then its name
    assert places["left"][0].right <= centre.x and places["right"][0].x >= centre.right
    assert places["top"][0].bottom <= pools["top"][0].y
    assert pools["left"][0].right <= pools["right"][0].x  # side by side
    assert pools["top"][0].bottom <= pools["left"][0].y < pools["bottom"][0].y
    # six tiles a row, the left seat's last discard marked
    assert face(T.M4, style) + "*" in pools["left"][1]
    rows = [r.rstrip() for r in pools["right"][1].split("\n")[1:] if r.strip()]
    assert len(rows) == 2  # Bot-Bao's seven discards: a row of six, then one
    assert 6 * 4 - 2 <= cell_len(rows[0]) <= 6 * 5 and cell_len(rows[1]) <= 4


def test_a_long_pool_keeps_its_newest_rows_when_the_box_is_low() -> None:
    discards = tuple(T(i % 27) for i in range(30))  # five rows
    view = sample_view().with_seat(3, discards=discards)

    def check(app, pilot):
        pool = app.screen.query_one("#pool-left")
        return pool.region.height, widget_text(pool)

    height, text = _run(view, (80, 24), TileStyle.ASCII, "en", check=check)
    lines = text.split("\n")
    assert height < 6  # the box cannot hold the label and five rows
    assert "+" in lines[0]  # the label says how many older tiles are hidden
    # the newest discard still shows, marked as the table's last
    assert lines[-1].split()[-2:] == [T(29 % 27).notation, "*"]


def test_spectator_sees_no_hand_and_every_count() -> None:
    _app, text = _run(sample_view(me=None), (100, 32), TileStyle.ASCII, "en")
    assert "Spectating" in text
    assert text.count("####x") == 4  # all four seats show only a count
    assert "[1]" not in text  # no hand row


def test_before_the_first_deal_the_status_line_says_the_match_waits() -> None:
    waiting = replace(sample_view(), playing=False, dice=(), wall_count=0, hand=(), drawn=None)
    _app, text = _run(waiting, (100, 32), TileStyle.ASCII, "en")
    assert "Waiting: four seated, all ready" in text.splitlines()[0]
    assert "round, hand" not in text.splitlines()[0]
    _app, text = _run(sample_view(), (100, 32), TileStyle.ASCII, "en")
    assert "round, hand" in text.splitlines()[0]  # a dealt hand shows its round


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
    assert _run(view, (100, 32), keys=["3", "enter"], check=check)[2] == [Choice("discard", T.P4)]
    # the selected tile's own key again discards it
    assert _run(view, (100, 32), keys=["4", "4"], check=check)[2] == [Choice("discard", T.P6)]
    assert _run(view, (80, 24), keys=["enter"], check=check)[2] == [Choice("discard", T.P5)]


def test_hand_cannot_discard_without_a_turn_prompt_and_says_why() -> None:
    def check(app, pilot):
        return app.screen.query_one(HandRow).cursor, list(app.sent), screen_text(app)

    keys = ["left", "enter", "3"]
    cursor, sent, text = _run(sample_view(), (100, 32), TileStyle.ASCII, "en", keys, check)
    assert sent == [] and cursor == 0  # the hand takes no key outside the player's turn
    assert "Not your turn" in text  # the action line says why the keys did nothing


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

    assert asyncio.run(go()) == (T.M3, [Choice("discard", T.M3)])


@pytest.mark.parametrize(
    ("key", "expected"),
    [("1", Choice("chow", T.M2)), ("2", Choice("chow", T.M3)), ("space", Choice("pass"))],
)
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


def test_self_drawn_win_key_on_own_turn() -> None:
    view = turn_prompt(sample_view())
    sent = _run(view, (100, 32), keys=["h"], check=lambda app, _: list(app.sent))
    assert sent == [Choice("win")]


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
            await pilot.pause(0.2)
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


def test_auto_pass_answers_a_claim_and_shows_in_the_status_line() -> None:
    sent, text = _offline(claim_prompt(sample_view()), ["x"])
    assert sent == [("pass", None, 7, 41)]
    assert "[auto-pass]" in text.split("\n")[0]


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
