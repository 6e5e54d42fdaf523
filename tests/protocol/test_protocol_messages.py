"""Validation of messages on decode and on encode: each rule, each error naming its field."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from protocol.errors import ErrorCode, ProtocolError
from protocol.examples import MESSAGE_EXAMPLES
from protocol.fans import FAN_BY_ID
from protocol.messages import (
    MESSAGE_TYPES,
    STAKES,
    Action,
    Chat,
    ChatSend,
    Discard,
    Error,
    Event,
    EventBody,
    HandResult,
    Hello,
    MeldView,
    Message,
    Ping,
    Welcome,
)
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind

EXAMPLE = {m.TAG: m for m in MESSAGE_EXAMPLES}


def wire(type_: str) -> dict[str, Any]:
    """The example message of ``type_`` as a decoded wire map (lists, not tuples)."""
    return _lists(EXAMPLE[type_].to_wire())


def _lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(v) for v in value]
    return value


def refused(data: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        Message.from_wire(data)
    return info.value


# -- the message itself -----------------------------------------------------------------
def test_unknown_type() -> None:
    err = refused({"type": "teleport"})
    assert err.code is ErrorCode.UNKNOWN_TYPE and err.field == "type"
    assert "teleport" in str(err)


def test_a_class_decodes_only_its_own_type() -> None:
    assert Hello.from_wire(wire("hello")) == EXAMPLE["hello"]
    with pytest.raises(ProtocolError) as info:
        Hello.from_wire(wire("welcome"))
    assert info.value.code is ErrorCode.UNKNOWN_TYPE


def test_missing_field_is_named() -> None:
    data = wire("hello")
    del data["client"]
    err = refused(data)
    assert err.code is ErrorCode.MISSING_FIELD and err.field == "hello.client"
    assert str(err) == "hello.client: missing"


def test_extra_field_is_named() -> None:
    data = wire("hello") | {"colour": "red"}
    err = refused(data)
    assert err.code is ErrorCode.EXTRA_FIELD and "colour" in err.field


def test_extra_field_in_a_nested_map_is_named_with_its_path() -> None:
    data = wire("snapshot")
    data["game"]["seats"][2]["melds"] = [
        {
            "kind": "pung",
            "tile": 27,
            "concealed": False,
            "claimed_from": 1,
            "added": False,
            "x": 1,
        }
    ]
    err = refused(data)
    assert err.code is ErrorCode.EXTRA_FIELD
    assert err.field == "snapshot.game.seats[2].melds[0].'x'"


def test_optional_fields_may_be_absent_or_nil() -> None:
    assert Message.from_wire({"type": "ping"}) == Ping()
    assert Message.from_wire({"type": "ping", "id": None}) == Ping()
    assert Ping().to_wire() == {"type": "ping"}  # None is not sent


def test_request_id_is_echoed_as_sent() -> None:
    assert Message.from_wire({"type": "ping", "id": 2**32 - 1}).id == 2**32 - 1
    assert refused({"type": "ping", "id": 2**32}).field == "ping.id"
    assert refused({"type": "ping", "id": -1}).code is ErrorCode.OUT_OF_RANGE


# -- field types ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "kind"),
    [("1", "a string"), (1.0, "a float"), (True, "a boolean"), (None, "nil"), ([1], "a list")],
)
def test_wrong_type_for_an_integer(value: Any, kind: str) -> None:
    err = refused(wire("hello") | {"version": value})
    assert err.code is ErrorCode.WRONG_TYPE and err.field == "hello.version"
    assert kind in str(err)


def test_wrong_type_for_a_boolean() -> None:
    err = refused(wire("ready") | {"ready": 1})
    assert err.code is ErrorCode.WRONG_TYPE and err.field == "ready.ready"


def test_wrong_type_for_a_string() -> None:
    err = refused(wire("login") | {"name": b"alice"})
    assert err.code is ErrorCode.WRONG_TYPE and err.field == "login.name"


def test_wrong_type_for_a_list() -> None:
    err = refused(wire("tile_counts") | {"counts": {"a": 1}})
    assert err.code is ErrorCode.WRONG_TYPE and err.field == "tile_counts.counts"


def test_wrong_type_for_a_map() -> None:
    err = refused(wire("session") | {"profile": [1, 2]})
    assert err.code is ErrorCode.WRONG_TYPE and err.field == "session.profile"


# -- ranges -----------------------------------------------------------------------------
@pytest.mark.parametrize("tile", [-1, 34, 42, 45, 1000])
def test_a_tile_code_that_does_not_exist_or_is_not_playable(tile: int) -> None:
    err = refused(wire("action") | {"tile": tile})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "action.tile"
    assert str(tile) in str(err)


def test_tiles_decode_as_tiles() -> None:
    msg = Message.from_wire(wire("action") | {"tile": 33})
    assert isinstance(msg, Action) and msg.tile is Tile.P


def test_a_flower_field_takes_only_flowers() -> None:
    data = {"type": "event", "table_id": 1, "seq": 1, "event": {"kind": "flower", "seat": 0}}
    assert refused(data | {"event": data["event"] | {"tile": 5}}).field == "event.event.tile"
    assert Message.from_wire(data | {"event": data["event"] | {"tile": 41}}).event.tile is Tile.F8


@pytest.mark.parametrize("seat", [-1, 4, 7])
def test_a_seat_of_seven(seat: int) -> None:
    err = refused(wire("sit") | {"seat": seat})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "sit.seat"


def test_claimed_from_is_relative_0_to_3() -> None:
    data = wire("snapshot")
    data["game"]["seats"][1]["melds"][0]["claimed_from"] = 4
    assert refused(data).field == "snapshot.game.seats[1].melds[0].claimed_from"


@pytest.mark.parametrize("fan", [0, 83, -5])
def test_a_fan_id_that_does_not_exist(fan: int) -> None:
    data = wire("hand_result")
    data["fans"][1] = [fan, 1]
    err = refused(data)
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "hand_result.fans[1][0]"


def test_every_fan_id_is_accepted() -> None:
    data = wire("hand_result")
    data["fans"] = [[fan, 1] for fan in sorted(FAN_BY_ID)]
    assert len(Message.from_wire(data).fans) == len(FAN_BY_ID)


def test_a_pair_of_the_wrong_length() -> None:
    data = wire("hand_result")
    data["fans"][0] = [39, 1, 1]
    assert refused(data).field == "hand_result.fans[0]"


def test_unknown_action_kind() -> None:
    err = refused(wire("action") | {"kind": "steal"})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "action.kind"
    assert "discard" in str(err)  # lists what is allowed


def test_unknown_event_kind() -> None:
    err = refused({"type": "event", "table_id": 1, "seq": 1, "event": {"kind": "nap"}})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "event.event.kind"


def test_event_without_kind() -> None:
    err = refused({"type": "event", "table_id": 1, "seq": 1, "event": {"seat": 1}})
    assert err.code is ErrorCode.MISSING_FIELD and err.field == "event.event.kind"


@pytest.mark.parametrize("stake", [3, -1, 15, 10**6])
def test_a_stake_not_in_the_series(stake: int) -> None:
    data = wire("create_table")
    data["settings"]["stake"] = stake
    assert refused(data).field == "create_table.settings.stake"


def test_the_stake_series() -> None:
    assert STAKES[:8] == (0, 1, 2, 5, 10, 20, 50, 100)


def test_list_lengths() -> None:
    short = wire("tile_counts") | {"counts": [4] * 33}
    assert refused(short).field == "tile_counts.counts"
    wall = wire("hand_result")
    wall["wall_order"] = wall["wall_order"][:-1]
    assert "144" in str(refused(wall))


# -- strings ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["", "x" * 25])
def test_name_length(name: str) -> None:
    err = refused(wire("login") | {"name": name})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "login.name"


def test_lengths_count_characters_not_bytes() -> None:
    assert Message.from_wire(wire("login") | {"name": "国标麻将" * 6}).name == "国标麻将" * 6


@pytest.mark.parametrize("text", ["\x1b[2J", "a\nb", "bell\x07", "\u2028", "\x85", "\u202e"])
def test_control_characters_are_refused(text: str) -> None:
    err = refused(wire("chat_send") | {"text": text})
    assert err.code is ErrorCode.OUT_OF_RANGE and err.field == "chat_send.text"


@pytest.mark.parametrize("salt", ["ABCD", "xyz0", "", "0" * 129])
def test_hex_fields(salt: str) -> None:
    assert refused(wire("hand_result") | {"salt": salt}).field == "hand_result.salt"


def test_error_codes_are_the_closed_list() -> None:
    assert refused(wire("error") | {"code": "oops"}).field == "error.code"
    assert Message.from_wire(wire("error") | {"code": "stale"}).code == "stale"


# -- cross-field rules ------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["discard", "chow", "concealed_kong", "added_kong"])
def test_an_action_that_needs_a_tile(kind: str) -> None:
    data = wire("action") | {"kind": kind}
    del data["tile"]
    err = refused(data)
    assert err.code is ErrorCode.MISSING_FIELD and err.field == "action.tile"


@pytest.mark.parametrize("kind", ["win", "pung", "exposed_kong", "pass"])
def test_an_action_that_takes_no_tile(kind: str) -> None:
    err = refused(wire("action") | {"kind": kind})
    assert err.code is ErrorCode.EXTRA_FIELD and err.field == "action.tile"
    assert Message.from_wire(
        {k: v for k, v in (wire("action") | {"kind": kind}).items() if k != "tile"}
    )


def test_prompt_choices_follow_the_same_rule() -> None:
    data = wire("prompt")
    data["actions"][1]["tile"] = 3  # pung with a tile
    assert refused(data).field == "prompt.actions[1].tile"


def test_table_chat_needs_a_table_and_lobby_chat_has_none() -> None:
    assert refused({"type": "chat_send", "channel": "table", "text": "hi"}).field == (
        "chat_send.table_id"
    )
    err = refused({"type": "chat_send", "channel": "lobby", "table_id": 3, "text": "hi"})
    assert err.code is ErrorCode.EXTRA_FIELD
    assert isinstance(Message.from_wire({"type": "chat", "channel": "lobby", "text": "hi"}), Chat)


def test_hand_result_outcomes() -> None:
    draw = wire("hand_result") | {"outcome": "exhaustive_draw"}
    assert refused(draw).field == "hand_result.winner"
    for name in ("winner", "from_seat", "win_tile"):
        del draw[name]
    assert Message.from_wire(draw).outcome == "exhaustive_draw"
    assert refused(draw | {"outcome": "escape"}).field == "hand_result.escaper"
    assert refused(draw | {"escaper": 2}).field == "hand_result.escaper"
    win = wire("hand_result")
    del win["win_tile"]
    assert refused(win).field == "hand_result.win_tile"


def test_a_concealed_kong_claims_no_tile() -> None:
    data = wire("snapshot")
    data["game"]["seats"][0]["melds"] = [
        {
            "kind": "kong",
            "tile": 5,
            "concealed": True,
            "claimed_from": 0,
            "claimed_tile": 5,
            "added": False,
        }
    ]
    assert refused(data).field == "snapshot.game.seats[0].melds[0].claimed_tile"


def test_face_down_kongs_are_nil_in_a_seat_and_in_a_sealed_hands_end() -> None:
    snap = Message.from_wire(wire("snapshot"))
    assert snap.game.seats[3].melds == (None,)
    # A duplicate deal still to be played elsewhere (docs/rules.md §2.14): no wall, the
    # others' concealed tiles empty, their concealed kongs face down.
    result = wire("hand_result")
    result["melds"][3] = [None]
    result["concealed"][3] = []
    del result["wall_order"], result["salt"]
    sealed = Message.from_wire(result)
    assert sealed.melds[3] == (None,) and sealed.wall_order is None and sealed.salt is None
    result["melds"][3] = ["kong"]
    assert refused(result).field == "hand_result.melds[3][0]"


# -- encoding checks the same rules -----------------------------------------------------
def test_encoding_checks_fields() -> None:
    with pytest.raises(ProtocolError) as info:
        Action(table_id=1, seq=1, kind="discard", tile=45).to_wire()
    assert info.value.field == "action.tile"


def test_encoding_checks_cross_field_rules() -> None:
    with pytest.raises(ProtocolError) as info:
        ChatSend(channel="table", text="hi").to_wire()
    assert info.value.field == "chat_send.table_id"


def test_encoding_checks_required_fields() -> None:
    with pytest.raises(ProtocolError) as info:
        Welcome(version=1, server=None).to_wire()
    assert info.value.code is ErrorCode.MISSING_FIELD


def test_encoding_checks_nested_record_types() -> None:
    bad = Event(
        table_id=1,
        seq=1,
        event=MeldView(kind="pung", tile=1, concealed=False, claimed_from=1, added=False),
    )
    with pytest.raises(ProtocolError) as info:
        bad.to_wire()
    # A meld has fields no event kind has: the first of them is named.
    assert info.value.field.startswith("event.event.")


def test_encoding_turns_tiles_and_tuples_into_plain_values() -> None:
    data = EXAMPLE["hand_result"].to_wire()
    assert type(data["wall_order"]) is list and type(data["wall_order"][0]) is int
    assert data["fans"][0] == [39, 1]


def test_error_message_carries_code_and_text() -> None:
    err = refused({"type": "sit", "table_id": 1, "seat": 9})
    reply = Error(code=err.code, message=str(err), id=4)
    assert reply.to_wire() == {
        "type": "error",
        "id": 4,
        "code": "out_of_range",
        "message": "sit.seat: 9 is out of range 0..3",
    }


def test_every_message_type_has_a_distinct_class() -> None:
    assert len({id(c) for c in MESSAGE_TYPES.values()}) == len(MESSAGE_TYPES)
    assert all(t == MESSAGE_TYPES[t].TAG for t in MESSAGE_TYPES)
    assert all(c.SENDER in ("client", "server", "both") for c in MESSAGE_TYPES.values())
    assert HandResult.TAG == "hand_result"


def test_event_bodies_decode_by_kind() -> None:
    body = EventBody.from_wire({"kind": "discard", "seat": 1, "tile": 4})
    assert body == Discard(seat=1, tile=Tile.M5)
    assert Discard.from_wire({"kind": "discard", "seat": 1, "tile": 4}) == body
    with pytest.raises(ProtocolError) as info:
        EventBody.from_wire(["discard"])
    assert info.value.code is ErrorCode.WRONG_TYPE


def test_records_keep_the_dataclass_field_protocol() -> None:
    # Records are msgspec structs; code that copies one with a change still may.
    ping = dataclasses.replace(EXAMPLE["ping"], id=3)
    assert ping == Ping(id=3) and type(ping) is Ping
    assert [f.name for f in dataclasses.fields(Welcome)] == ["id", "version", "server"]


def test_a_record_the_program_builds_is_checked_only_when_sent() -> None:
    bad = Action(table_id=1, seq=1, kind=ActionKind.PASS, tile=Tile.M1)  # pass takes no tile
    with pytest.raises(ProtocolError) as info:
        bad.to_wire()
    assert info.value.code is ErrorCode.EXTRA_FIELD and info.value.field == "action.tile"
