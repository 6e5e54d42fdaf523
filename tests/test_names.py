"""The one name and password policy (gbmj_server.names): NFKC, the character rules,
invisible fillers, one script a name, reserved prefixes and look-alike skeletons."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbmj_server.names import (
    NameRefused,
    PasswordRefused,
    check_password,
    name_skeleton,
    normalise_name,
)


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("alice", "alice"),
        ("Dave_1.-x", "Dave_1.-x"),
        ("ａｌｉｃｅ", "alice"),  # fullwidth: NFKC makes it plain
        ("Ｄave", "Dave"),
        ("éclair", "éclair"),
        ("e\u0301clair", "éclair"),  # a combining accent composes
        ("Дмитрий", "Дмитрий"),  # one script, not Latin: fine
        ("Σωκράτης", "Σωκράτης"),
        ("小明", "小明"),
        ("阿Q", "阿Q"),  # CJK with Latin is allowed
        ("さくら2", "さくら2"),
        ("김민수x", "김민수x"),
        ("42", "42"),
        ("नमस्ते", "नमस्ते"),  # a script that writes with marks keeps them
        ("ไทย", "ไทย"),
    ],
)
def test_good_names_are_kept_in_nfkc(typed: str, stored: str) -> None:
    assert normalise_name(typed) == stored


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a", "2-20 characters"),
        ("x" * 21, "2-20 characters"),
        ("ａ" * 21, "2-20 characters"),
        ("a b", "not a space"),
        ("a/b", "letters, digits and _ - . only"),
        ("[b]x[/b]", "letters, digits and _ - . only"),
        ("x\u3164y", "invisible character U+3164"),  # HANGUL FILLER, a "letter"
        ("\u3164\u3164", "invisible character U+3164"),
        ("al\u200dice", "invisible character U+200D"),  # zero-width joiner
        ("al\u200bice", "invisible character U+200B"),
        ("ali\ufe0fce", "invisible character U+FE0F"),
        ("\u202eecila", "invisible character U+202E"),  # right-to-left override
        ("\u0301ab", "combining mark"),
        ("alice0\u0301", "may not put U+0301 over '0'"),  # nothing to compose with
        ("ali\u0307ce", "may not put U+0307 over 'i'"),  # a dot over the dot of i
        ("e\u0301\u0301clair", "may not put U+0301 over 'é'"),  # stacked
        ("न\u093e\u0901\u0902\u0903", "at most 3 marks"),
        ("__", "a letter or a digit"),
        ("аlice", "one script, not Cyrillic and Latin"),  # Cyrillic а
        ("Ωmega", "one script, not Greek and Latin"),
        ("ᏴOT9", "one script"),  # Cherokee Ᏼ
        ("guest7", "guest or bot"),
        ("Guest", "guest or bot"),
        ("bot1", "guest or bot"),
        ("BOTTY", "guest or bot"),
        ("ʙot1", "guest or bot"),  # LATIN LETTER SMALL CAPITAL B
        ("b0t", "guest or bot"),  # a zero for the o
        ("ɡuest", "guest or bot"),  # LATIN SMALL LETTER SCRIPT G
        ("ｇｕｅｓｔ", "guest or bot"),
    ],
)
def test_bad_names_are_refused_with_a_reason(name: str, reason: str) -> None:
    with pytest.raises(NameRefused) as refused:
        normalise_name(name)
    assert reason in refused.value.reason


@pytest.mark.parametrize(
    "look_alike",
    ["alice", "аlice", "ａlice", "Alice", "AIice", "aIice", "a1ice", "аlісе"],
)
def test_look_alikes_share_one_skeleton(look_alike: str) -> None:
    assert name_skeleton(look_alike) == name_skeleton("alice")


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("ali", "all"), ("小明", "小朋")])
def test_different_names_have_different_skeletons(one: str, other: str) -> None:
    assert name_skeleton(one) != name_skeleton(other)


@given(st.text(max_size=30))
def test_any_text_is_either_refused_or_a_fixed_point(text: str) -> None:
    try:
        name = normalise_name(text)
    except NameRefused as refused:
        assert refused.reason
        return
    assert normalise_name(name) == name
    assert name_skeleton(name) == name_skeleton(text)  # the key of what was typed


@pytest.mark.parametrize("password", ["sixsix", "x" * 128, "密码密码密码", "pass word"])
def test_passwords_of_6_to_128_characters_pass(password: str) -> None:
    check_password(password)


@pytest.mark.parametrize("password", ["", "five5", "x" * 129])
def test_other_passwords_are_refused(password: str) -> None:
    with pytest.raises(PasswordRefused, match="6-128 characters"):
        check_password(password)
