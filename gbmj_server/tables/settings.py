"""What a table's settings mean (docs/rules.md §2.2, §2.3): the protocol's own
``TableSettings`` record is the settings; these read it, with the defaults of the fields
a client may leave out. The password travels beside the settings and is kept apart."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from gbmj_server.net.errors import RequestError
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import ActionKind, SeatChanges, TimerClass, WhenBroke

AUTO_PLAY_AFTER = 2  # own-turn timeouts in a row that put a seat on auto-play
OFFLINE_GRACE = 30  # seconds a disconnected player's decision waits at an untimed table

RESERVE = 60  # seconds of time bank a player has for a match, by default (§2.3)

DEFAULT = m.TableSettings(
    name="table",
    stake=0,
    timers=m.TimerSettings(
        on=True, first_discard=30, turn=15, claim_window=5, pung_window=3, reserve=RESERVE
    ),
    rounds=4,
    bots_allowed=True,
)


def checked(settings: m.TableSettings) -> m.TableSettings:
    """A client's settings, with the name trimmed; a blank name is refused, and so is the
    coach at a stake table."""
    name = settings.name.strip()
    if not name or not name.isprintable():
        raise RequestError(ErrorCode.OUT_OF_RANGE, "settings.name must be printable text")
    if settings.coach and settings.stake:
        raise RequestError(
            ErrorCode.COACH_NOT_ALLOWED, "hints (the coach) are for free tables, not stake tables"
        )
    return replace(settings, name=name)


def with_fee(settings: m.TableSettings, fee_per_stake: int) -> m.TableSettings:
    """The settings with the house's table fee (茶水费, §2.5) in coins: ``fee_per_stake``
    (the host's setting) × the stake, none at a free table. The server sets it; a
    client's value is never kept."""
    fee = fee_per_stake * settings.stake
    return replace(settings, table_fee=fee if fee > 0 else None)


# What a seat may claim with the pung window: nothing but a pung or an exposed kong.
PUNG_CLAIMS = frozenset({ActionKind.PUNG, ActionKind.EXPOSED_KONG, ActionKind.PASS})


def seconds(
    settings: m.TableSettings, timer: TimerClass, kinds: Collection[ActionKind] = ()
) -> float | None:
    """The length of a decision timed by ``timer`` for a seat that may choose ``kinds``
    (§2.3: in a claim window, a seat whose only claims are a pung or a kong has the pung
    window when the table sets one); None when timers are off."""
    timers = settings.timers
    if not timers.on:
        return None
    pung_only = ActionKind.PASS in kinds and set(kinds) <= PUNG_CLAIMS
    if timer is TimerClass.CLAIM_WINDOW and pung_only and timers.pung_window is not None:
        return float(timers.pung_window)
    return float(getattr(timers, timer.value))


def reserve(settings: m.TableSettings) -> float:
    """Each player's time bank for the match, in seconds (none when timers are off)."""
    timers = settings.timers
    return float(timers.reserve or 0) if timers.on else 0.0


def result_pause(settings: m.TableSettings, host_pause: float) -> float:
    """Seconds the next hand waits for players still reading the result (§2.3)."""
    return host_pause if settings.result_pause is None else float(settings.result_pause)


def seat_changes(settings: m.TableSettings) -> SeatChanges:
    """When the players change places (§1.5): before every round unless set."""
    return settings.seat_changes or SeatChanges.EVERY_ROUND


def when_broke(settings: m.TableSettings) -> WhenBroke:
    return settings.when_broke or WhenBroke.BOT


def auto_play_after(settings: m.TableSettings) -> int:
    return settings.auto_play_after or AUTO_PLAY_AFTER


def offline_grace(settings: m.TableSettings) -> float:
    return float(settings.offline_grace or OFFLINE_GRACE)


def public_history(settings: m.TableSettings) -> bool:
    """A finished match readable by anyone: by default for free tables only (§2.10)."""
    if settings.public_history is not None:
        return settings.public_history
    return settings.stake == 0
