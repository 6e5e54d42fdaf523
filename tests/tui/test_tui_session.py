"""The session without a screen: the reconnect backoff, and the dispatch table folding
messages in (a Textual message for each thing that happened)."""

from __future__ import annotations

import random
from dataclasses import replace

from tui_sample import sample_view

from gbmj_tui import messages as ui
from gbmj_tui.dispatch import Dispatch
from gbmj_tui.session import BACKOFF_CAP, BACKOFF_FIRST, backoff
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.vocabulary import TableStatus

INFO = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]


def test_backoff_doubles_is_jittered_and_capped() -> None:
    rng = random.Random(7)
    waits = [backoff(attempt, rng) for attempt in range(1, 12)]
    assert BACKOFF_FIRST / 2 <= waits[0] <= BACKOFF_FIRST
    assert all(w <= BACKOFF_CAP for w in waits) and waits[-1] >= BACKOFF_CAP / 2
    again = [backoff(5, random.Random(seed)) for seed in range(20)]
    assert len(set(again)) > 1  # clients dropped together do not come back together


def _dispatch():
    posted: list[object] = []
    return Dispatch(posted.append, "en"), posted


def test_every_handled_message_tells_the_app_and_others_are_ignored() -> None:
    d, posted = _dispatch()
    d.view = replace(sample_view(), table_id=INFO.table_id)
    d.watching = True
    d.receive(m.TableList(tables=(INFO,), total=1, players_online=3))
    d.receive(m.Chat(channel="lobby", sender="Dan", text="hi"))
    d.receive(m.Pong())  # nothing to fold in
    kinds = [type(p) for p in posted]
    assert kinds == [ui.LobbyChanged, ui.ChatReceived]
    assert d.tables == {INFO.table_id: INFO}


def test_a_lobby_update_changes_only_its_rows() -> None:
    d, posted = _dispatch()
    d.watching = True
    other = replace(INFO, table_id=INFO.table_id + 1)
    d.receive(m.TableList(tables=(INFO, other), total=2))
    changed = replace(INFO, spectators=9)
    d.receive(
        m.LobbyUpdate(tables=(changed,), removed=(other.table_id,), total=1, players_online=1)
    )
    last = posted[-1]
    assert isinstance(last, ui.LobbyChanged) and not last.reset
    assert last.tables == (changed,) and last.removed == (other.table_id,)
    assert d.tables == {INFO.table_id: changed}


def test_a_table_list_while_the_lobby_is_hidden_is_the_answer_to_stop_watching() -> None:
    d, posted = _dispatch()
    d.receive(m.TableList(tables=(), total=5))
    assert posted == []


def test_session_ending_notices_forget_the_token() -> None:
    d, posted = _dispatch()
    d.token = "tok_3q9XvB7kLm2PzR8w"
    d.receive(m.Notice(code="restarting", message="back soon"))
    assert d.token is not None and isinstance(posted[-1], ui.Told)
    d.receive(m.Notice(code="replaced", message="elsewhere"))
    assert d.token is None and isinstance(posted[-1], ui.SessionEnded)


def test_an_update_of_the_players_table_after_the_match_clears_the_board() -> None:
    d, posted = _dispatch()
    d.view = replace(sample_view(), table_id=INFO.table_id, status=TableStatus.PLAYING)
    d.receive(m.TableUpdate(table=INFO))  # status waiting: the match is over
    assert d.view is not None and not d.view.match_running
    assert all(not s.discards for s in d.view.seats)
    assert isinstance(posted[-1], ui.ViewChanged)


def test_someone_stood_up_at_the_table_is_told_by_name_but_not_twice_to_them() -> None:
    d, posted = _dispatch()
    d.view = replace(sample_view(), table_id=INFO.table_id)
    d.profile = m.Profile(name="alice", guest=False, coins=400, rating=0, level=1)
    d.receive(m.StoodUp(table_id=INFO.table_id, name="[b]bob[/b]", need=1_000))
    d.receive(m.StoodUp(table_id=INFO.table_id + 1, name="carol", need=1_000))  # elsewhere
    d.receive(m.StoodUp(table_id=INFO.table_id, name="alice", need=1_000))  # table_left says
    (told,) = posted
    assert isinstance(told, ui.Told)
    assert told.text == "[b]bob[/b] was stood up: a seat here needs 1000 coins"
