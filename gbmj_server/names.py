"""One name and password policy, for every way an account is made (the game port, SSH,
the web page).

A name is taken as Unicode NFKC (so fullwidth ``ａｌｉｃｅ`` is ``alice``), then must be
2-20 characters of letters, digits and ``_ - .``, with no invisible filler (U+3164 HANGUL
FILLER is a "letter" to Unicode), no combining mark left loose over a Latin letter or a
digit (``0`` + U+0301), and one script: a name that mixes Latin with Cyrillic or Greek
is how a look-alike is made. Latin may go with the scripts of Chinese,
Japanese and Korean names (Han, Hiragana, Katakana, Bopomofo, Hangul), the "highly
restrictive" level of Unicode's identifier security (UTS #39): a player writes ``阿Q``
or ``小明2`` naturally, and no CJK character passes for a Latin letter.

Look-alikes across scripts are caught by the name's skeleton: the UTS #39 confusables
skeleton, case-folded, from ``disarm`` (Unicode's own confusables data), with digits
folded too (``0`` as ``o``, ``1`` as ``l``), as an identifier check wants. A new name
whose skeleton is an existing account's is refused (``аlice``, Cyrillic ``а``, beside
``alice``), and the reserved prefixes ``guest`` and ``bot`` are tested on the skeleton,
so ``ʙot1`` or ``b0t`` are refused as well.

The stored skeletons follow ``disarm``'s key schema (pinned below 0.18 in the project):
a version with another schema needs a migration that computes them again.
"""

from __future__ import annotations

import unicodedata

import disarm

MIN_NAME, MAX_NAME = 2, 20
MIN_PASSWORD, MAX_PASSWORD = 6, 128
MAX_MARKS = 3  # combining marks on one letter (a vowel sign and a tone mark, say)
PUNCTUATION = frozenset("_-.")
RESERVED_PREFIXES = ("guest", "bot")  # the server's own names: guest-1a2b3c, bot players
NAME_RULE = "2-20 letters, digits, _ - . (not guest… or bot…)"

# Default-ignorable characters that Unicode files as letters or marks, so the category
# test alone lets them through (the format characters, Cf, are refused as such).
INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0),
        *range(0xFE00, 0xFE10),  # variation selectors
        *range(0xE0100, 0xE01F0),  # variation selectors supplement
    ]
)
CJK = frozenset(
    {
        disarm.Script.HAN,
        disarm.Script.HIRAGANA,
        disarm.Script.KATAKANA,
        disarm.Script.BOPOMOFO,
        disarm.Script.HANGUL,
    }
)


class Refused(ValueError):
    """A name or password the rules refuse; ``reason`` says why, in English."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NameRefused(Refused):
    pass


class PasswordRefused(Refused):
    pass


def normalise_name(name: str) -> str:
    """The name as it will be stored (NFKC), or ``NameRefused`` with the reason."""
    if not isinstance(name, str):
        raise NameRefused("a name is text")
    for char in name:  # before NFKC, so the reason names the character that was typed
        if ord(char) in INVISIBLE or unicodedata.category(char) == "Cf":
            raise NameRefused(f"a name may not hold the invisible character U+{ord(char):04X}")
    name = unicodedata.normalize("NFKC", name)
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise NameRefused(f"a name is {MIN_NAME}-{MAX_NAME} characters long")
    for char in name:
        if ord(char) in INVISIBLE:
            raise NameRefused(f"a name may not hold the invisible character U+{ord(char):04X}")
        category = unicodedata.category(char)
        if not (category[0] in "LM" or category == "Nd" or char in PUNCTUATION):
            what = "a space" if category[0] == "Z" else f"U+{ord(char):04X}"
            raise NameRefused(f"a name is letters, digits and _ - . only (not {what})")
    if unicodedata.category(name[0])[0] == "M":
        raise NameRefused("a name may not start with a combining mark")
    _check_marks(name)
    if all(char in PUNCTUATION for char in name):
        raise NameRefused("a name needs a letter or a digit")
    scripts = set(disarm.detect_scripts(name))
    if len(scripts) > 1 and not scripts <= CJK | {disarm.Script.LATIN}:
        raise NameRefused(f"a name is written in one script, not {_scripts(scripts)}")
    if name_skeleton(name).startswith(RESERVED_PREFIXES):
        raise NameRefused("names starting guest or bot (or a look-alike) are the server's")
    return name


def _check_marks(name: str) -> None:
    """A combining mark left after NFKC over a Latin letter or a digit has no letter of
    its own (``0`` + U+0301): it draws as a speck over a name another player has, so it
    is refused; a script that writes with marks (Devanagari, Thai) keeps them, at most
    ``MAX_MARKS`` on one letter."""
    base, marks = "", 0
    for char in name:
        if unicodedata.category(char)[0] != "M":
            base, marks = char, 0
            continue
        marks += 1
        if base.isascii() or unicodedata.name(base, "").startswith("LATIN"):
            raise NameRefused(
                f"a name may not put U+{ord(char):04X} over {base!r}: type the letter with "
                "its accent (é, ñ)"
            )
        if marks > MAX_MARKS:
            raise NameRefused(f"a name may put at most {MAX_MARKS} marks on one letter")


def name_skeleton(name: str) -> str:
    """The key two names that look alike share (``alice``, ``аlice``, ``ａlice``,
    ``AIice`` all give ``alice``): what a new name must not have in common with an
    existing account's."""
    return disarm.skeleton_key(unicodedata.normalize("NFKC", name), digit_policy="tr39")


def check_password(password: str) -> None:
    """``PasswordRefused`` unless the password is 6-128 characters."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise PasswordRefused(f"a password is {MIN_PASSWORD}-{MAX_PASSWORD} characters long")


def _scripts(scripts: set[disarm.Script]) -> str:
    return " and ".join(sorted(s.name.title() for s in scripts))
