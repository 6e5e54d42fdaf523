"""The table's widgets; each draws plain values from gbmj_tui.model."""

from gbmj_tui.widgets.actionline import ActionLine
from gbmj_tui.widgets.claim import PromptBar
from gbmj_tui.widgets.countdown import CountdownBar
from gbmj_tui.widgets.fans import FanTable
from gbmj_tui.widgets.hand import HandRow
from gbmj_tui.widgets.help import HelpPanel
from gbmj_tui.widgets.seat import DiscardPool, SeatPanel, TileCounter

__all__ = [
    "ActionLine",
    "CountdownBar",
    "DiscardPool",
    "FanTable",
    "HandRow",
    "HelpPanel",
    "PromptBar",
    "SeatPanel",
    "TileCounter",
]
