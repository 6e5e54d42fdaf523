"""Saving a hand with a recorder (录像机, docs/rules.md §2.6), for the screens that show
an ended hand: the match's hand list (r) and the hand's result (r).

``HandSaver`` asks the server how many recorders the player holds (``get_inventory``),
then asks the player, saying the cost, then sends ``save_hand``; what happens is said
through the screen's ``say``. The screen hands it the replies and refusals it receives
(``Requested`` with the screen as ``reply_to``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from gbmj_tui.i18n import tr
from gbmj_tui.messages import Replied, Requested
from gbmj_tui.screens.dialogs import Confirm
from protocol import messages as m
from protocol.vocabulary import Item


class HandSaver:
    """One screen's saving of hands: one at a time."""

    def __init__(self, screen: Screen[Any], lang: str, say: Callable[[str], None]) -> None:
        self.screen = screen
        self.lang = lang
        self.say = say
        self.saving: tuple[int, str] | None = None  # the hand's id and name, while asked

    def start(self, hand_id: int, name: str) -> None:
        """Save this hand: the recorders held are asked first."""
        if self.saving is not None:
            return
        self.saving = (hand_id, name)
        self.say("...")
        self.screen.post_message(Requested(m.GetInventory(), reply_to=self.screen))

    def replied(self, replied: Replied) -> bool:
        """Take a reply of the saving's; whether it was one."""
        reply = replied.reply
        if self.saving is None:
            return False
        hand_id, name = self.saving
        if isinstance(reply, m.Inventory) and isinstance(replied.request, m.GetInventory):
            self._ask(hand_id, name, reply)
            return True
        if isinstance(reply, m.SavedHands) and isinstance(replied.request, m.SaveHand):
            words = tr("{hand} saved for good: anyone with its id, {id}, may replay it", self.lang)
            self.say(words.format(hand=name, id=hand_id))
            self.saving = None
            return True
        return False

    def refused(self) -> None:
        """The server refused a request of the saving's: nothing is being saved."""
        self.saving = None

    def _ask(self, hand_id: int, name: str, inventory: m.Inventory) -> None:
        held = sum(s.count for s in inventory.slots if s.item == Item.RECORDER)
        if not held:
            self.saving = None
            self.say(tr("You have no recorder: the shop sells them", self.lang))
            return
        question = tr("Save {hand} for good? It uses 1 recorder (you have {held}).", self.lang)

        def answered(yes: bool | None) -> None:
            if yes:
                self.screen.post_message(
                    Requested(m.SaveHand(hand_id=hand_id), reply_to=self.screen)
                )
            else:
                self.saving = None
                self.say("")

        self.screen.app.push_screen(
            Confirm(question.format(hand=name, held=held), self.lang), answered
        )
