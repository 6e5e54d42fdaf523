"""Checking a replay file away from any server: ``verify`` gives a ``Report`` of every
check made and every mismatch found, in words a player reads.

First whom the file comes from: it must carry a certificate whose fingerprint the
reader trusts (a server pinned by the client, or a key named on the command line:
``Trust``), and the server's signature of the match's record and of each hand's
(``gbmj.replay.signing``). A file nobody trusted signed is refused there and then.

For each hand: its signature, the seating (dealer, winds), the wall (a full set of
144, or four personal walls of 34: docs/rules.md §1.6), the commitment (SHA-256 of the
match id, the hand's number, the wall order and the salt: the hand is bound to its
place), whether that is the commitment this client was
shown before the deal (``Promises``, when the client kept any), the dice and the break,
every deal and draw against the wall read with the rule book's geometry (docs/rules.md
§1.1), the legality of every action (replayed with the rules), the times, and the
result, the fans and the payments (scored again with gbmj's calculator; the coins from
the points and the stake). For the match: its signature, the hands' numbering, the
players and the standings against the hands' points and coins.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from protocol import messages as wire
from protocol.fans import FAN_BY_ID
from protocol.tiles import WINDS, Tile
from protocol.vocabulary import ActionKind, Outcome

from ..game.actions import action_of
from ..game.hand_state import HandState, IllegalAction
from ..game.personal_walls import PERSONAL_SET, PERSONAL_WALL_SIZE, PersonalWalls
from ..game.wall import FULL_SET, Wall
from .build import result_of
from .format import Replay, ReplayFormatError, ReplayHand, ReplayResult, loads
from .signing import BadCertificate, certificate_of, hand_statement, match_statement, signed

HANDS_PER_ROUND = 4
_CheckFn = Callable[[str, bool, str], None]  # adds one check: what, ok, detail


@dataclass(frozen=True, slots=True)
class Check:
    """One thing checked: where (``hand 3``, ``match``, ``file``), what, and how it went."""

    where: str
    what: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Report:
    title: str
    checks: tuple[Check, ...]
    # The file was refused before its contents were checked (unreadable, malformed, or
    # signed by nobody trusted): its one check says why.
    refused: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def mismatches(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    @property
    def verdict(self) -> str:
        """The last line: verified, or not and the first reason why."""
        if self.ok:
            return f"verified: {len(self.checks)} checks, no mismatch"
        if self.refused:
            return f"NOT VERIFIED: {self.checks[0].detail}"
        bad = self.mismatches
        first = bad[0]
        where = "" if first.where == "file" else f"{first.where.split(' (')[0]}, "
        count = f"{len(bad)} mismatch{'es' if len(bad) != 1 else ''}"
        return f"NOT VERIFIED ({count}): {where}{first.what}: {first.detail}"

    def text(self) -> str:
        """The report as printed: a section per hand, a line per check, then the verdict
        (a refused file: the verdict alone, one line)."""
        if self.refused:
            return self.verdict
        lines = [self.title]
        where = None
        for c in self.checks:
            if c.where != where:
                where = c.where
                lines.append(f"{where}:")
            lines.append(f"  {'ok' if c.ok else 'MISMATCH':8}  {c.what}: {c.detail}")
        lines.append(self.verdict)
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Trust:
    """Whose signature makes a file verified: certificate fingerprints (as
    ``protocol.tls`` writes them) and the name each is known by (``127.0.0.1:7415``, or
    the key given on the command line); ``whence`` says where they come from."""

    servers: Mapping[str, str]
    whence: str

    def name_of(self, fingerprint: str) -> str | None:
        return next(
            (name for fp, name in self.servers.items() if fp.upper() == fingerprint.upper()),
            None,
        )


@dataclass(frozen=True, slots=True)
class Promises:
    """The commitments this client was shown before the deals of the file's server's
    hands: (match id, hand number) -> commitment; ``whence`` says where they are kept."""

    kept: Mapping[tuple[int, int], str] = field(default_factory=dict)
    whence: str = ""


def refusal(reason: str) -> Report:
    """A file refused before its contents were checked, with the reason."""
    return Report("not verified", (Check("file", "file", False, reason),), refused=True)


def verify_text(
    text: str | bytes, trust: Trust | None = None, promises: Promises | None = None
) -> Report:
    """``verify`` of a file's text; a text that is no replay file fails with the reason."""
    try:
        replay = loads(text)
    except ReplayFormatError as exc:
        return refusal(str(exc))
    return verify(replay, trust, promises)


def verify(replay: Replay, trust: Trust | None, promises: Promises | None = None) -> Report:
    """Every check of ``replay``: signed by a server ``trust`` names (refused at once
    otherwise), then each hand and the match; ``promises``, the commitments this client
    kept, say whether each wall is the one it was promised."""
    m = replay.match
    if replay.certificate is None:
        return refusal("the file carries no server signature: nothing outside it vouches for it")
    try:
        certificate, fingerprint = certificate_of(replay.certificate)
    except BadCertificate as exc:
        return refusal(str(exc))
    if trust is None:
        return refusal(
            f"signed by the certificate {fingerprint}, but no server was named to check it "
            "against (--server or --key)"
        )
    server = trust.name_of(fingerprint)
    if server is None:
        return refusal(
            f"signed by the certificate {fingerprint}, which is not {trust.whence}: "
            "a file from a server you did not name"
        )
    title = (
        f"match {m.match_id} at table {m.table_name!r} of {server}: "
        f"{len(replay.hands)} of {m.hands_played} hands "
        f"(replay format {replay.version}, written by {replay.exporter})"
    )
    checks = [
        Check(
            "file",
            "server",
            True,
            f"the certificate {fingerprint} of {server} ({trust.whence}): every signature "
            "below is checked with it",
        )
    ]
    for hand in replay.hands:
        ok = signed(certificate, hand_statement(m.match_id, hand), hand.signature)
        checks.extend(_hand_checks(hand, m.match_id, m.stake, ok, promises))
    checks.extend(_match_checks(replay, signed(certificate, match_statement(m), m.signature)))
    return Report(title, tuple(checks))


# -- the wall as docs/rules.md §1.1 describes it -------------------------------------------
# Written from the rule book's text on purpose, not taken from gbmj.game.wall: a check
# of the engine's deals and draws must not be the engine's own arithmetic.


def documented_commitment(match_id: int, number: int, order: Sequence[int], salt: str) -> str:
    """Lowercase hex SHA-256 of the match id (8 bytes, big-endian), the hand's number (1
    byte), the tile codes of the order (one byte each: 144, or 136 for personal walls)
    and the salt."""
    place = match_id.to_bytes(8, "big") + bytes([number])
    return hashlib.sha256(place + bytes(order) + bytes.fromhex(salt)).hexdigest()


def documented_break(dealer: int, dice: Sequence[Sequence[int]]) -> tuple[int, int]:
    """(second roller, break stack) of the dice."""
    a, b = sum(dice[0]), sum(dice[1])
    roller = (dealer + a - 1) % 4
    wall_start = ((dealer - roller) % 4) * 18  # w(s): the right end of seat s's wall
    return roller, (wall_start + a + b) % 72


def documented_deal(j: int) -> tuple[int, ...]:
    """Draw-sequence positions dealt to the seat ``j`` places after the dealer."""
    blocks = tuple(16 * k + 4 * j + i for k in range(3) for i in range(4))
    return (*blocks, 48, 52) if j == 0 else (*blocks, 48 + j)


# -- one hand ---------------------------------------------------------------------------


def _hand_checks(
    hand: ReplayHand, match_id: int, stake: int, signed_ok: bool, promises: Promises | None
) -> list[Check]:
    where = f"hand {hand.number} (round {hand.round_number}, hand {hand.hand_number})"
    out: list[Check] = []

    def check(what: str, ok: bool, detail: str) -> None:
        out.append(Check(where, what, ok, detail))

    check(
        "signature",
        signed_ok,
        f"the server signed this hand of match {match_id} as the file has it"
        if signed_ok
        else f"the server did not sign this hand as the file has it in match {match_id} "
        "(changed since it was signed, or a hand of another match)",
    )

    order = [int(t) for t in hand.wall.order]
    check(*_seating(hand))
    names = [s.player for s in hand.seats]
    # 136 tiles: personal walls (docs/rules.md §1.6), four of 34 in seat order.
    personal = len(order) == 4 * PERSONAL_WALL_SIZE
    full_set = PERSONAL_SET if personal else FULL_SET
    missing = Counter(full_set) - Counter(hand.wall.order)
    extra = Counter(hand.wall.order) - Counter(full_set)
    if missing or extra:
        check(
            "wall",
            False,
            f"not a full set of {len(full_set)} tiles: "
            + ", ".join(
                [f"{n} × {Tile(t)} too many" for t, n in sorted(extra.items())]
                + [f"{n} × {Tile(t)} missing" for t, n in sorted(missing.items())]
            )
            + "; nothing else of this hand can be checked",
        )
        return out
    check(
        "wall",
        True,
        "four personal walls of 34 tiles, each tile but the flowers once"
        if personal
        else "144 tiles, each tile of the set once",
    )
    try:
        computed = documented_commitment(match_id, hand.number, order, hand.wall.salt)
    except ValueError:
        check("commitment", False, f"the salt {hand.wall.salt!r} is not whole bytes of hex")
        return out
    place = f"match {match_id}, hand {hand.number}"
    if computed == hand.wall.commitment:
        check(
            "commitment",
            True,
            f"SHA-256 of {place}, the wall order and salt is {computed[:16]}…, as the file "
            "says was announced",
        )
    else:
        check(
            "commitment",
            False,
            f"SHA-256 of {place}, the wall order and salt is {computed[:16]}…, but the "
            f"commitment is {hand.wall.commitment[:16]}…: this is not the wall promised for "
            f"hand {hand.number} of match {match_id}",
        )
    if promises is not None:
        check(*_promised(promises, match_id, hand))
    if personal:
        _personal_checks(hand, match_id, names, stake, check)
        return out
    dice = hand.wall.dice
    roller, break_stack = documented_break(hand.dealer, dice)
    first, second = sum(dice[0]), sum(dice[1])
    wall = Wall(
        tuple(hand.wall.order),
        (dice[0], dice[1]),
        bytes.fromhex(hand.wall.salt),
        hand.dealer,
        match_id,
        hand.number,
    )
    state = HandState(
        wall,
        prevailing_wind=hand.prevailing_wind,
        round_number=hand.round_number,
        hand_number=hand.hand_number,
    )
    start = state.events[0]
    assert isinstance(start, wire.HandStart)
    check(
        "dice",
        (start.second_roller, start.break_stack) == (roller, break_stack),
        f"the dealer rolled {dice[0][0]}+{dice[0][1]} = {first}, seat {roller} rolled second "
        f"{dice[1][0]}+{dice[1][1]} = {second}: drawing starts at stack {break_stack}"
        + (
            ""
            if (start.second_roller, start.break_stack) == (roller, break_stack)
            else f", but the game started at stack {start.break_stack}"
        ),
    )
    played: list[tuple[str, bool, str]] = []  # reported after the deal and the draws
    done = _replay_actions(hand, state, lambda *c: played.append(c))
    _check_draws(hand, state.events, order, break_stack, check)
    for c in played:
        check(*c)
    _check_end(hand, state, done, names, stake, check)
    return out


def _personal_checks(
    hand: ReplayHand, match_id: int, names: Sequence[str], stake: int, check: _CheckFn
) -> None:
    """The rest of a personal-wall hand's checks: no dice, each seat's deal and draws
    from its own wall (docs/rules.md §1.6), the actions, the times and the result."""
    check(
        "dice",
        tuple(hand.wall.dice) == ((1, 1), (1, 1)),
        "no dice are rolled on personal walls (the file says the lowest roll)"
        if tuple(hand.wall.dice) == ((1, 1), (1, 1))
        else f"personal walls roll no dice, but the file says {hand.wall.dice}",
    )
    walls = PersonalWalls.from_order(
        hand.wall.order,
        bytes.fromhex(hand.wall.salt),
        hand.dealer,
        match_id,
        hand.number,
    )
    state = HandState(
        walls,
        prevailing_wind=hand.prevailing_wind,
        round_number=hand.round_number,
        hand_number=hand.hand_number,
    )
    played: list[tuple[str, bool, str]] = []
    done = _replay_actions(hand, state, lambda *c: played.append(c))
    _check_personal_draws(hand, state.events, check)
    for c in played:
        check(*c)
    _check_end(hand, state, done, names, stake, check)


def _check_personal_draws(
    hand: ReplayHand, events: Sequence[wire.EventBody], check: _CheckFn
) -> None:
    """Each seat is dealt the front of its own wall (13 tiles, the dealer 14) and draws,
    replacements too, the next tile of its own wall."""
    walls = [hand.wall.order[34 * s : 34 * (s + 1)] for s in range(4)]
    front = [0, 0, 0, 0]
    dealt = drawn = 0
    for ev in events:
        if isinstance(ev, wire.Deal):
            size = 14 if ev.seat == hand.dealer else 13
            want = tuple(walls[ev.seat][:size])
            if ev.tiles != want:
                check(
                    "deal",
                    False,
                    f"seat {ev.seat} was dealt {_tiles(ev.tiles)}, its wall gives {_tiles(want)}",
                )
                return
            front[ev.seat] = size
            dealt += size
        elif isinstance(ev, wire.Draw):
            seat, at = ev.seat, front[ev.seat]
            if at >= 34 or ev.tile != walls[seat][at]:
                gives = "nothing (it is empty)" if at >= 34 else str(walls[seat][at])
                check("draws", False, f"seat {seat} drew {ev.tile}, its wall gives {gives}")
                return
            front[seat] += 1
            drawn += 1
    check("deal", dealt == 53, f"{dealt} tiles dealt, each seat's from the front of its wall")
    check("draws", True, f"{drawn} draws, each the next tile of the drawer's own wall")


def _check_end(
    hand: ReplayHand,
    state: HandState,
    done: bool,
    names: Sequence[str],
    stake: int,
    check: _CheckFn,
) -> None:
    """The times, and the result against the rules' (when the actions end the hand)."""
    times = [a.ms for a in hand.actions]
    back = next((i for i in range(1, len(times)) if times[i] < times[i - 1]), None)
    check(
        "times",
        back is None,
        "each action at or after the one before"
        if back is None
        else f"action {back + 1} at {times[back]} ms comes before action {back} at "
        f"{times[back - 1]} ms",
    )
    if done:
        _check_result(hand.result, result_of(state), names, stake, check)
    else:
        said = _outcome(hand.result, names)
        check("result", False, f"the file says {said}; its actions do not get there")


def _promised(promises: Promises, match_id: int, hand: ReplayHand) -> tuple[str, bool, str]:
    kept = promises.kept.get((match_id, hand.number))
    if kept is None:
        return "promised", True, f"this client kept no commitment of this hand ({promises.whence})"
    if kept == hand.wall.commitment:
        return (
            "promised",
            True,
            f"the commitment this client was shown before the deal ({promises.whence})",
        )
    return (
        "promised",
        False,
        f"this client was shown {kept[:16]}… before the deal, the file has "
        f"{hand.wall.commitment[:16]}…: not the wall this player was promised",
    )


def _seating(hand: ReplayHand) -> tuple[str, bool, str]:
    winds = tuple(WINDS[(s - hand.dealer) % 4] for s in range(4))
    wrong = []
    if [s.seat for s in hand.seats] != [0, 1, 2, 3]:
        wrong.append("the seats are not listed 0 to 3")
    if tuple(s.wind for s in hand.seats) != winds:
        wrong.append(
            "the seat winds are "
            + " ".join(str(s.wind) for s in hand.seats)
            + f", not {' '.join(map(str, winds))} from the dealer"
        )
    if hand.dealer != hand.hand_number - 1:
        wrong.append(f"hand {hand.hand_number} of a round is dealt by seat {hand.hand_number - 1}")
    if hand.prevailing_wind != WINDS[hand.round_number - 1]:
        wrong.append(f"round {hand.round_number}'s wind is {WINDS[hand.round_number - 1]}")
    players = ", ".join(f"seat {s.seat} {s.player} {s.wind}" for s in hand.seats)
    if wrong:
        return "seating", False, "; ".join(wrong)
    return "seating", True, f"dealer seat {hand.dealer}, wind {hand.prevailing_wind}; {players}"


def _replay_actions(hand: ReplayHand, state: HandState, check: _CheckFn) -> bool:
    """Play the file's actions with the rules; True when they end the hand."""
    n = len(hand.actions)
    for i, a in enumerate(hand.actions):
        try:
            state.apply(a.seat, action_of(a.kind, a.tile))
        except IllegalAction as exc:
            what = f"{a.kind}" + ("" if a.tile is None else f" {a.tile}")
            why = str(exc)
            if a.kind is ActionKind.WIN:
                why = (
                    f"seat {a.seat} holds no winning hand of 8 fan here: a false win (诈和)"
                    if exc.code == "illegal_action"
                    else why
                )
            check(
                "actions",
                False,
                f"action {i + 1} of {n} (seat {a.seat}: {what}, at {a.ms} ms) is not legal: {why}",
            )
            return False
    escaper = hand.result.escaper
    if escaper is not None:
        if state.ended:
            check("actions", False, f"the hand had ended before seat {escaper} could leave it")
            return False
        state.escape(escaper)
    if not state.ended:
        waiting = ", ".join(map(str, state.to_act))
        check(
            "actions", False, f"the {n} actions stop before the hand's end (seat {waiting} to act)"
        )
        return False
    ends = "an escape" if escaper is not None else "its end"
    check("actions", True, f"{n} actions, each legal when it was played, up to {ends}")
    return True


def _check_draws(
    hand: ReplayHand,
    events: Sequence[wire.EventBody],
    order: Sequence[int],
    break_stack: int,
    check: _CheckFn,
) -> None:
    """Each deal and draw of the replay is the tile the rule book's geometry gives."""
    sequence = [order[(2 * break_stack + i) % 144] for i in range(144)]
    front, back = 53, 144
    dealt = drawn = replaced = 0
    for ev in events:
        if isinstance(ev, wire.Deal):
            j = (ev.seat - hand.dealer) % 4
            want = tuple(Tile(sequence[p]) for p in documented_deal(j))
            if ev.tiles != want:
                check(
                    "deal",
                    False,
                    f"seat {ev.seat} was dealt {_tiles(ev.tiles)}, the wall gives {_tiles(want)}",
                )
                return
            dealt += len(want)
        elif isinstance(ev, wire.Draw):
            if ev.replacement:
                back -= 1
                position, where = back, "the back"
                replaced += 1
            else:
                position, where = front, "the front"
                front += 1
                drawn += 1
            if ev.tile != sequence[position]:
                check(
                    "draws",
                    False,
                    f"seat {ev.seat} drew {ev.tile} from {where}, the wall gives "
                    f"{Tile(sequence[position])} (draw-sequence position {position})",
                )
                return
    check("deal", dealt == 53, f"{dealt} tiles dealt, each from its documented position")
    check(
        "draws",
        True,
        f"{drawn} from the front and {replaced} replacements from the back, "
        "each the next tile of the draw sequence",
    )


def _check_result(
    claimed: ReplayResult,
    ruled: ReplayResult,
    names: Sequence[str],
    stake: int,
    check: _CheckFn,
) -> None:
    said, found = _outcome(claimed, names), _outcome(ruled, names)
    check(
        "result",
        said == found,
        said if said == found else f"the file says {said}; replayed with the rules: {found}",
    )
    if Outcome.WIN in (ruled.outcome, claimed.outcome) or claimed.fans or claimed.total:
        same = sorted(claimed.fans) == sorted(ruled.fans) and claimed.total == ruled.total
        check(
            "fans",
            same,
            f"{_fans(ruled)} (gbmj's calculator)"
            if same
            else f"the file says {_fans(claimed)}; gbmj's calculator scores {_fans(ruled)}",
        )
    points = " ".join(_signed(p) for p in claimed.points)
    check(
        "points",
        tuple(claimed.points) == tuple(ruled.points),
        f"{points} by seat, as docs/rules.md §1.4 pays"
        if tuple(claimed.points) == tuple(ruled.points)
        else f"the file says {points}; the rules pay " + " ".join(_signed(p) for p in ruled.points),
    )
    _check_coins(claimed, ruled.points, stake, check)


def _check_coins(result: ReplayResult, points: Sequence[int], stake: int, check: _CheckFn) -> None:
    """Coins follow the points the rules give × the stake (docs/rules.md §2.5): each
    payer pays at most what the points ask (less only when it had less), the winner
    gets what was paid; a free table moves none."""
    coins = result.coins
    if coins is None:
        if stake and any(points):
            check("coins", False, f"a table of stake {stake} moved no coins")
        return
    wrong = []
    capped = 0
    gainer = result.winner
    for seat in range(4):
        if seat == gainer:
            continue
        owed = min(points[seat], 0) * stake
        if coins[seat] > 0 or coins[seat] < owed:
            wrong.append(
                f"seat {seat} {coins[seat]:+d} (the points × stake {stake} ask {owed} to 0)"
            )
        elif coins[seat] != owed:
            capped += 1
    if gainer is not None:
        paid = -sum(c for s, c in enumerate(coins) if s != gainer)
        if coins[gainer] != paid:
            wrong.append(f"the winner got {coins[gainer]:+d} of the {paid} paid")
    shown = " ".join(_signed(c) for c in coins)
    if wrong:
        check("coins", False, f"{shown}: " + "; ".join(wrong))
        return
    short = f", {capped} payer{'s' if capped > 1 else ''} short" if capped else ""
    check("coins", True, f"{shown} by seat (points × stake {stake}{short})")


def _outcome(r: ReplayResult, names: Sequence[str]) -> str:
    if r.outcome is Outcome.WIN and r.winner is not None:
        how = "self-drawn" if r.from_seat is None else f"on the discard of seat {r.from_seat}"
        return f"seat {r.winner} ({names[r.winner]}) wins on {r.win_tile}, {how}"
    if r.outcome is Outcome.ESCAPE and r.escaper is not None:
        return f"seat {r.escaper} ({names[r.escaper]}) escapes, ending the hand"
    return "an exhaustive draw (the wall ran out)"


def _fans(r: ReplayResult) -> str:
    parts = [
        f"{FAN_BY_ID[f].name_zh} {FAN_BY_ID[f].points}" + (f" × {n}" if n > 1 else "")
        for f, n in r.fans
    ]
    return f"{r.total} fan: " + (", ".join(parts) or "none")


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _tiles(tiles: Sequence[int] | None) -> str:
    return " ".join(str(Tile(t)) for t in tiles or ())


# -- the whole match ----------------------------------------------------------------------


def _match_checks(replay: Replay, signed_ok: bool) -> list[Check]:
    m = replay.match
    out: list[Check] = []

    def check(what: str, ok: bool, detail: str) -> None:
        out.append(Check("match", what, ok, detail))

    check(
        "signature",
        signed_ok,
        f"the server signed match {m.match_id}'s record (stake {m.stake}, "
        f"{m.hands_played} hands, the standings) as the file has it"
        if signed_ok
        else f"the server did not sign match {m.match_id}'s record as the file has it "
        "(its stake, standings or hands were changed since)",
    )
    numbers = [h.number for h in replay.hands]
    ordered = [
        h
        for h in replay.hands
        if h.number == (h.round_number - 1) * HANDS_PER_ROUND + h.hand_number
    ]
    check(
        "numbering",
        len(ordered) == len(numbers) and numbers == sorted(set(numbers)),
        "each hand's number follows from its round and place in the round"
        if len(ordered) == len(numbers) and numbers == sorted(set(numbers))
        else "hands out of order or numbered against their rounds: "
        + ", ".join(str(n) for n in numbers),
    )
    strangers = sorted({s.player for h in replay.hands for s in h.seats} - set(m.players))
    check(
        "players",
        not strangers,
        "every seat of every hand held by one of the match's players"
        if not strangers
        else "seats held by players the match does not list: " + ", ".join(strangers),
    )
    whole = numbers == list(range(1, m.hands_played + 1))
    if not whole:
        check(
            "standings",
            True,
            f"the file holds {len(numbers)} of {m.hands_played} hands: "
            "the match's totals are not checked",
        )
        return out
    if m.standings is None:
        return out
    points: Counter[str] = Counter()
    coins: Counter[str] = Counter()
    for h in replay.hands:
        for s in h.seats:
            points[s.player] += h.result.points[s.seat]
            if h.result.coins is not None:
                coins[s.player] += h.result.coins[s.seat]
    has_coins = any(h.result.coins is not None for h in replay.hands)
    wrong = [
        f"{s.name} {s.points:+d} (the hands add up to {points[s.name]:+d})"
        for s in m.standings
        if s.points != points[s.name]
    ]
    if has_coins:
        wrong += [
            f"{s.name} {s.coins:+d} coins (the hands add up to {coins[s.name]:+d})"
            for s in m.standings
            if s.coins != coins[s.name]
        ]
    check(
        "standings",
        not wrong,
        "each player's points"
        + (" and coins" if has_coins else "")
        + " are the sum of their hands'"
        if not wrong
        else "; ".join(wrong),
    )
    return out
