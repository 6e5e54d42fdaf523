"""The client's words for the house's table options (docs/rules.md §2.5)."""

from __future__ import annotations

from gbmj_tui.screens.lobby import stake_cell
from protocol import messages as m

TIMERS = m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5)


def settings(stake: int, fee: int | None) -> m.TableSettings:
    return m.TableSettings(
        name="t", stake=stake, timers=TIMERS, rounds=1, bots_allowed=True, table_fee=fee
    )


def test_the_lobby_shows_the_fee_beside_the_stake() -> None:
    assert stake_cell(settings(10, 20), "en") == "10 (fee 20)"
    assert stake_cell(settings(10, 20), "zh") == "10 (茶水费 20)"
    assert stake_cell(settings(10, None), "en") == "10"
    assert stake_cell(settings(0, None), "en") == "free"
