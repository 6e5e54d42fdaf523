"""The client's Textual messages.

Screens and widgets never call the app: they post what the player asked for
(``Requested``, ``SignIn``, ``ActionChosen``) and the app does it. The session
(gbmj_tui.session) tells the app what happened on the connection with the messages
below ``-- from the session``; the app hands each to the screen that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rich.text import Text
from textual.message import Message
from textual.message_pump import MessagePump
from textual.notifications import SeverityLevel

from gbmj_tui.model import TableView
from protocol import messages as m
from protocol.messages import ActionChoice


# -- from screens and widgets ------------------------------------------------------------------
class Requested(Message):
    """Send ``request`` to the server. Its reply goes to ``reply_to`` (as ``Replied`` or
    ``Refused``) when given; a refusal is otherwise shown on the action line."""

    def __init__(self, request: m.Message, reply_to: MessagePump | None = None) -> None:
        super().__init__()
        self.request = request
        self.reply_to = reply_to


class JoinAsked(Message):
    """Enter a table and take its first free seat (watch it when none is free)."""

    def __init__(self, table_id: int, password: str | None = None) -> None:
        super().__init__()
        self.table_id = table_id
        self.password = password


class SignIn(Message):
    """Connect to ``server`` (over plain TCP with ``insecure``) and log in, register or
    play as a guest."""

    def __init__(
        self, how: str, server: str, name: str, password: str, *, insecure: bool = False
    ) -> None:
        super().__init__()
        self.how = how
        self.server = server
        self.name = name
        self.password = password
        self.insecure = insecure


class ActionChosen(Message):
    """The player chose an action for the open prompt (discard, win, kong, claim, pass)."""

    def __init__(self, choice: ActionChoice) -> None:
        super().__init__()
        self.choice = choice


class ReplayAsked(Message):
    """Replay the hand ``hand_id`` (from the result screen or a match's history);
    ``costly``: open it at the player's costliest discard (the coach's review)."""

    def __init__(self, hand_id: int, *, costly: bool = False) -> None:
        super().__init__()
        self.hand_id = hand_id
        self.costly = costly


class ExportAsked(Message):
    """Write the hand ``hand_id`` to a replay file; the answer (``Told``) names it."""

    def __init__(self, hand_id: int) -> None:
        super().__init__()
        self.hand_id = hand_id


class MuteAsked(Message):
    """Open the mute dialog for ``names`` (at the table ``table_id``, whose owner may mute
    there too), ``selected`` first under the cursor."""

    def __init__(
        self,
        names: tuple[str, ...],
        *,
        table_id: int | None = None,
        owner: bool = False,
        selected: str | None = None,
    ) -> None:
        super().__init__()
        self.names = names
        self.table_id = table_id
        self.owner = owner
        self.selected = selected


class KeyRefused(Message):
    """A key did nothing; ``reason`` says why (shown on the action line)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


# -- from the session ----------------------------------------------------------------------
class Link(StrEnum):
    """The state of the connection, as the screens show it."""

    OFFLINE = "offline"  # no session
    ONLINE = "online"
    RECONNECTING = "reconnecting"  # dropped: connecting again (backoff)


@dataclass(frozen=True, slots=True)
class LinkState:
    link: Link
    attempt: int = 0  # the reconnect attempt under way
    delay: float = 0.0  # seconds before it


class Linked(Message):
    def __init__(self, state: LinkState) -> None:
        super().__init__()
        self.state = state


class Replied(Message):
    """A reply for the widget that asked (``Requested.reply_to``)."""

    def __init__(self, request: m.Message, reply: m.Message) -> None:
        super().__init__()
        self.request = request
        self.reply = reply


class Refused(Message):
    """The server (or the network) refused a request; ``text`` says why, for the player."""

    def __init__(self, request: m.Message, code: str, text: str) -> None:
        super().__init__()
        self.request = request
        self.code = code
        self.text = text


class TableShown(Message):
    """The player entered a table, or got a fresh snapshot of it."""

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view


class ViewChanged(Message):
    """The table's view changed; ``prompted``: a new prompt for the player came with it."""

    def __init__(self, view: TableView, *, prompted: bool = False) -> None:
        super().__init__()
        self.view = view
        self.prompted = prompted


class ActionNoted(Message):
    """A line for the action line: what happened at the table, in words."""

    def __init__(self, line: Text) -> None:
        super().__init__()
        self.line = line


class HandEnded(Message):
    """A hand's result (``view.result``), with the next hand's start if it is timed."""

    def __init__(self, view: TableView, next_hand_ms: int | None) -> None:
        super().__init__()
        self.view = view
        self.next_hand_ms = next_hand_ms


class MatchEnded(Message):
    def __init__(self, result: m.MatchResult) -> None:
        super().__init__()
        self.result = result


class TableClosed(Message):
    """The player is no longer at the table; ``reason`` says why (empty: they left)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class LobbyChanged(Message):
    """Rows of the table list changed: ``tables`` new or changed, ``removed`` gone;
    ``reset``: the list is ``tables`` and nothing else."""

    def __init__(
        self,
        tables: tuple[m.TableInfo, ...],
        removed: tuple[int, ...] = (),
        *,
        reset: bool = False,
        total: int | None = None,
        online: int | None = None,
    ) -> None:
        super().__init__()
        self.tables = tables
        self.removed = removed
        self.reset = reset
        self.total = total
        self.online = online


class ChatReceived(Message):
    def __init__(self, channel: str, sender: str | None, text: str) -> None:
        super().__init__()
        self.channel = channel
        self.sender = sender
        self.text = text


class ProfileChanged(Message):
    def __init__(self, profile: m.Profile) -> None:
        super().__init__()
        self.profile = profile


class InventoryChanged(Message):
    def __init__(self, inventory: m.Inventory) -> None:
        super().__init__()
        self.inventory = inventory


class Told(Message):
    """Something to tell the player (a notice, an item won): a toast."""

    def __init__(self, text: str, severity: SeverityLevel = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


class SessionEnded(Message):
    """The session is over (signed in elsewhere, banned, signed out, its token gone)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class FollowLobby(Message):
    """The lobby screen shows (``on``) or is hidden: follow the table list or stop."""

    def __init__(self, on: bool) -> None:
        super().__init__()
        self.on = on
