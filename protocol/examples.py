"""One example of every message and every event kind, built from the real classes.

``docs/protocol.md`` shows these (``python -m protocol.docgen`` writes them there) and the
tests round-trip them, so the reference cannot drift from the code. They also show a
client author what plausible values look like: here seat 0 (alice, East) wins on a
discard from seat 1 with 花龙 + 单钓将 + two flowers, 11 fan.
"""

from __future__ import annotations

from . import messages as m
from .errors import ErrorCode
from .tiles import Tile as T
from .vocabulary import (
    ActionKind,
    BotLevel,
    Channel,
    Cloth,
    Item,
    LeaveReason,
    MatchEnd,
    MeldKind,
    NoticeCode,
    Outcome,
    Phase,
    Presence,
    TableStatus,
    TimerClass,
    TournamentAction,
    TournamentState,
)

# A replay's signature (docs/replay-format.md), shortened: base64 of DER bytes.
CERTIFICATE = "MIIBfjCCASSgAwIBAgIUSD4kdNCyPTQ0X8ZGsPt3lQ0vG/swCgYIKoZIzj0EAwIwFjEUMBIGA1UE"
MATCH_SIGNATURE = "MEUCIQDv0l2c0t1Ln3u8n9vYbR2mB8D2gS7i1pX6r2n1y3vZ6wIgV4kQ"
HAND_SIGNATURE = "MEQCIFm3QmV8yq1b2R4d3s1s0R6P3nq2fS9u8k7o6j5i4h3gAiBd8uQ="
COMMITMENT = "9f2b5c0e7d1a4c3b8e6f0a2d4c6e8b1a3f5d7c9e0b2a4c6e8d1f3a5c7e9b0d2f"
SALT = "5a1c9e3b7d2f4a6c8e0b1d3f5a7c9e2b"
TOKEN = "tok_3q9XvB7kLm2PzR8w"
TICKET = "eyJhIjo0MiwidCI6N30.q1Wd9sS0xZ3r"
SSH_KEY = "AAAAC3NzaC1lZDI1NTE5AAAAIEcdiJ7wiqXJ656BjKjqwTzBJh++TeQSiSzoAnG5sXPr"
SSH_FINGERPRINT = "SHA256:7qbZsuw9GlTI+4Hle+JCg+q+rdSxbjNMvC+4VIyr6B8"
TIMERS = m.TimerSettings(on=True, first_discard=30, turn=15, claim_window=5, reserve=60)
SETTINGS = m.TableSettings(name="东风局", stake=10, timers=TIMERS, rounds=4, bots_allowed=True)
PROFILE = m.Profile(name="alice", guest=False, coins=10_000, rating=300, level=3)
TABLE = m.TableInfo(
    table_id=7,
    owner="alice",
    settings=SETTINGS,
    has_password=False,
    seats=(
        m.LobbySeat(name="alice", bot=False, ready=True),
        m.LobbySeat(name="bot-1", bot=True, bot_level=BotLevel.NORMAL, ready=True),
        m.LobbySeat(bot=False, ready=False),
        m.LobbySeat(name="bob", bot=False, ready=False),
    ),
    spectators=2,
    status=TableStatus.WAITING,
)
# A wall of all 144 tiles (in code order here; a real one is shuffled).
WALL = tuple(T(c) for c in range(34) for _ in range(4)) + tuple(T(c) for c in range(34, 42))
DICE = ((3, 5), (2, 6))
PUNG_EAST = m.MeldView(
    kind=MeldKind.PUNG, tile=T.E, concealed=False, claimed_from=2, claimed_tile=T.E, added=False
)
CHOW_123 = m.MeldView(
    kind=MeldKind.CHOW, tile=T.M1, concealed=False, claimed_from=1, claimed_tile=T.M2, added=False
)
KONG_GREEN = m.MeldView(kind=MeldKind.KONG, tile=T.F, concealed=True, claimed_from=0, added=False)
FANS = ((39, 1), (79, 1), (81, 2))  # 花龙 8, 单钓将 1, 花牌 ×2
POINTS = (35, -19, -8, -8)  # the discarder pays 8 + 11, the others 8 each
CONCEALED = (
    (T.M2, T.M3, T.M4, T.P4, T.P5, T.P6, T.S7, T.S8, T.S9, T.C, T.C),
    (T.M1, T.M1, T.M1, T.M1, T.P1, T.P2, T.P3, T.S5, T.S5, T.W),
    tuple(T(c) for c in range(9, 22)),
    (T.S1, T.S2, T.S3, T.S4, T.S5, T.S6, T.N, T.N, T.P, T.P),
)
MELDS = ((CHOW_123,), (PUNG_EAST,), (), (KONG_GREEN,))
HAND = m.HandSummary(
    hand_id=412,
    number=1,
    round_number=1,
    hand_number=1,
    outcome=Outcome.WIN,
    winner=0,
    total=11,
    points=POINTS,
    players=("alice", "bot-1", "carol", "bob"),
)
MATCH = m.MatchSummary(
    match_id=88,
    table_name="东风局",
    started_at=1_795_000_000,
    ended_at=1_795_003_100,
    reason=MatchEnd.FINISHED,
    players=("alice", "bot-1", "carol", "bob", "bot-3"),
    hands=16,
    public=False,
    rank=1,
    points=120,
    coins=1_200,
)
FLOWERS = ((T.F1, T.F6), (), (T.F3,), ())


def _seat(
    seat: int, concealed: tuple[int, ...] | None = None, drawn: int | None = None
) -> m.SeatView:
    """Seat ``seat`` of the example hand as seat 0 sees it, before the winning discard."""
    return m.SeatView(
        seat=seat,
        wind=(T.E, T.S, T.W, T.N)[seat],
        concealed_count=len(CONCEALED[seat]) - (seat == 0),
        melds=(None,) if seat == 3 else MELDS[seat],  # seat 3's concealed kong: face down
        flowers=FLOWERS[seat],
        discards=((T.N, T.M9, T.S1), (T.P9, T.W), (T.F, T.M1, T.P5), (T.S9, T.P1))[seat],
        concealed=concealed,
        drawn=drawn,
        # seat 3 gave seat 0 its chow's 二万 and seat 1 its pung's 东
        claimed=((0, T.M2), (2, T.E)) if seat == 3 else None,
    )


TOURNAMENT = m.TournamentInfo(
    tournament_id=3,
    name="Thursday club",
    organiser="host",
    state=TournamentState.RUNNING,
    sessions=5,
    session=2,
    hands=8,
    minutes=60,
    entrants=16,
    entered=True,
)

MESSAGE_EXAMPLES: tuple[m.Message, ...] = (
    m.Hello(version=m.PROTOCOL_VERSION, client="gbmj/0.1.0"),
    m.Welcome(version=m.PROTOCOL_VERSION, server="gbmj-server/0.1.0"),
    m.Error(
        id=16,
        code=ErrorCode.OUT_OF_RANGE,
        message="action.tile: 45 is not a playing tile code (0..33)",
    ),
    m.Notice(code=NoticeCode.RESTARTING, message="the server restarts: back in a moment"),
    m.Ok(id=13),
    m.Ping(id=99),
    m.Pong(id=99),
    m.Register(id=1, name="alice", password="correct horse battery"),
    m.Login(id=1, name="alice", password="correct horse battery"),
    m.Guest(id=1),
    m.Resume(id=1, token=TOKEN),
    m.RedeemTicket(id=1, ticket=TICKET),
    m.Logout(id=40),
    m.ChangePassword(id=41, old="correct horse battery", new="staple battery horse"),
    m.Session(id=1, token=TOKEN, profile=PROFILE),
    m.ProfileUpdate(profile=PROFILE),
    m.GetLevels(id=5),
    m.Levels(id=5, thresholds=tuple(50 * (level - 1) * level for level in range(1, 38))),
    m.GetLeaderboard(id=6, limit=3),
    m.Leaderboard(
        id=6,
        entries=(
            m.LeaderEntry(rank=1, name="bob", level=12, rating=6_720),
            m.LeaderEntry(rank=2, name="alice", level=3, rating=300),
            m.LeaderEntry(rank=3, name="carol", level=1, rating=0),
        ),
    ),
    m.ListTables(id=2),
    m.WatchLobby(id=2, on=True),
    m.TableList(id=2, tables=(TABLE,), total=1, players_online=12),
    m.LobbyUpdate(tables=(TABLE,), removed=(5,), total=1, players_online=12),
    m.TableUpdate(table=TABLE),
    m.CreateTable(id=3, settings=SETTINGS),
    m.ConfigureTable(id=4, table_id=7, settings=SETTINGS, password="mahjong"),
    m.JoinTable(id=3, table_id=7),
    m.Redirect(
        id=3,
        table_id=7,
        address="node-b.example.org:7415",
        ticket=TICKET,
        fingerprint="SHA256:" + ":".join(["5E"] * 32),
    ),
    m.Spectate(id=3, table_id=7, password="mahjong"),
    m.Sit(id=8, table_id=7, seat=2),
    m.Stand(id=9, table_id=7),
    m.Ready(id=10, table_id=7, ready=True),
    m.AddBot(id=11, table_id=7, seat=1, level=BotLevel.NORMAL),
    m.RemoveBot(id=11, table_id=7, seat=1),
    m.Kick(id=11, table_id=7, seat=3),
    m.LeaveTable(id=14, table_id=7),
    m.TableLeft(table_id=7, reason=LeaveReason.KICKED),
    m.AutoPlay(id=15, table_id=7, on=True),
    m.Snapshot(
        id=3,
        table=TABLE,
        seat=0,
        seq=57,
        players=(
            m.PlayerView(name="alice", bot=False, presence=Presence.ONLINE, score=24, level=3),
            m.PlayerView(name="bot-1", bot=True, presence=Presence.AUTO_PLAY, score=-8),
            m.PlayerView(name="carol", bot=False, presence=Presence.OFFLINE, score=-8, level=1),
            m.PlayerView(name="bob", bot=False, presence=Presence.ONLINE, score=-8, level=12),
        ),
        game=m.GameView(
            round_number=1,
            hand_number=2,
            dealer=0,
            prevailing_wind=T.E,
            dice=DICE,
            break_stack=16,
            commitment=COMMITMENT,
            wall_remaining=83,
            phase=Phase.TURN,
            to_act=(0,),
            timer=TimerClass.TURN,
            ms_left=12_400,
            seats=(
                _seat(0, concealed=(*CONCEALED[0][:-1], T.W), drawn=T.W),
                _seat(1),
                _seat(2),
                _seat(3),
            ),
        ),
    ),
    m.Event(table_id=7, seq=58, event=m.Discard(seat=0, tile=T.S1)),
    m.Prompt(
        table_id=7,
        seq=58,
        actions=(
            m.ActionChoice(kind=ActionKind.CHOW, tile=T.S1),
            m.ActionChoice(kind=ActionKind.PUNG),
            m.ActionChoice(kind=ActionKind.PASS),
        ),
        timer=TimerClass.CLAIM_WINDOW,
        ms_left=34_800,
        reserve_ms=30_000,
    ),
    m.Action(id=16, table_id=7, seq=58, kind=ActionKind.CHOW, tile=T.S1),
    m.HandResult(
        table_id=7,
        hand_id=412,
        match_id=88,
        round_number=1,
        hand_number=2,
        outcome=Outcome.WIN,
        winner=0,
        from_seat=1,
        win_tile=T.C,
        fans=FANS,
        total=11,
        points=POINTS,
        scores=(59, -27, -16, -16),
        concealed=CONCEALED,
        melds=MELDS,
        flowers=FLOWERS,
        wall_order=WALL,
        salt=SALT,
        commitment=COMMITMENT,
        next_hand_ms=30_000,
    ),
    m.ResultClosed(id=17, table_id=7),
    m.MatchResult(
        table_id=7,
        match_id=88,
        reason=MatchEnd.FINISHED,
        standings=(
            m.Standing(name="alice", bot=False, seat=0, rank=1, points=120, coins=1_200),
            m.Standing(name="bob", bot=False, seat=3, rank=2, points=-16, coins=-160),
            m.Standing(name="bot-3", bot=True, seat=2, rank=3, points=-24, coins=-240),
            m.Standing(name="bot-1", bot=True, seat=1, rank=4, points=-64, coins=-640),
            m.Standing(
                name="carol", bot=False, rank=5, points=-96, coins=-960, left=LeaveReason.LEFT
            ),
        ),
    ),
    m.PresenceUpdate(table_id=7, seat=2, presence=Presence.OFFLINE),
    m.TimedOut(table_id=7, seat=2, timeouts=1),
    m.TimerExtended(table_id=7, seat=2, ms_left=90_000),
    m.StoodUp(table_id=7, name="carol", need=1_000),
    m.GetInventory(id=20),
    m.Inventory(
        id=20,
        slots=(
            m.ItemStack(item=Item.TIMER_EXTENSION, count=3, slot=0),
            m.ItemStack(item=Item.TILE_COUNTER, count=1, slot=1),
            m.ItemStack(item=Item.GEM_SHARD, count=1, slot=4),
        ),
        capacity=30,
        gem_cap=19_000,
    ),
    m.GetShop(id=21),
    m.Shop(
        id=21,
        offers=(
            m.ShopOffer(item=Item.TIMER_EXTENSION, price=500, use_cost=270),
            m.ShopOffer(item=Item.TILE_COUNTER, price=800),
        ),
    ),
    m.Buy(id=22, item=Item.TILE_COUNTER, count=2),
    m.ItemAwarded(item=Item.TIMER_EXTENSION, count=1),
    m.ItemAwarded(item=Item.GEM_SHARD, count=1, lost=True),
    m.MoveItem(id=29, from_slot=0, to_slot=5),
    m.UseItem(id=30, item=Item.GEM),
    m.LayTablecloth(id=31, table_id=7, cloth=Cloth.GREEN),
    m.ArmTimerExtension(id=23, table_id=7, armed=True),
    m.UseTileCounter(id=24, table_id=7),
    m.TileCounts(id=24, table_id=7, seq=58, counts=(4, 3, 3, 2, 3, 3, 4, 4, 3) + (3,) * 25),
    m.ListSshKeys(id=26),
    m.AddSshKey(id=27, public_key=f"ssh-ed25519 {SSH_KEY} alice@laptop"),
    m.RemoveSshKey(id=28, fingerprint=SSH_FINGERPRINT),
    m.SshKeys(
        id=27,
        keys=(
            m.SshKeyInfo(
                fingerprint=SSH_FINGERPRINT, algorithm="ssh-ed25519", comment="alice@laptop"
            ),
        ),
    ),
    m.ListMatches(id=30, limit=20),
    m.MatchList(id=30, matches=(MATCH,), total=1),
    m.GetMatch(id=31, match_id=88),
    m.MatchDetail(
        id=31,
        match=MATCH,
        stake=10,
        hands=(HAND,),
        certificate=CERTIFICATE,
        signature=MATCH_SIGNATURE,
    ),
    m.GetHand(id=32, hand_id=412),
    m.HandLog(
        id=32,
        hand_id=412,
        match_id=88,
        number=1,
        round_number=1,
        hand_number=1,
        prevailing_wind=T.E,
        dealer=0,
        dice=DICE,
        wall_order=WALL,
        salt=SALT,
        commitment=COMMITMENT,
        players=("alice", "bot-1", "carol", "bob"),
        actions=(
            m.LoggedAction(seat=0, kind=ActionKind.DISCARD, tile=T.N, ms=4_200),
            m.LoggedAction(seat=2, kind=ActionKind.PASS, ms=5_100),
            m.LoggedAction(seat=1, kind=ActionKind.DISCARD, tile=T.P9, ms=7_900),
        ),
        escape=3,
        points=(0, 0, 0, -80),
        signature=HAND_SIGNATURE,
    ),
    m.SaveHand(id=34, hand_id=412),
    m.ListSavedHands(id=35, limit=20),
    m.SavedHands(
        id=34,
        hands=(m.SavedHand(hand=HAND, match_id=88, table_name="东风局", saved_at=1_767_225_600),),
        total=1,
    ),
    m.Mute(id=33, name="spammer", on=True),
    m.ChatSend(id=25, channel=Channel.LOBBY, text="anyone for a 5-stake table?"),
    m.Chat(channel=Channel.TABLE, table_id=7, sender="bob", text="好牌!"),
    m.ListTournaments(id=40),
    m.TournamentList(id=40, tournaments=(TOURNAMENT,)),
    m.EnterTournament(id=41, tournament_id=3),
    m.WithdrawTournament(id=42, tournament_id=3),
    m.GetTournament(id=43, tournament_id=3),
    m.TournamentDetail(
        id=43,
        tournament=TOURNAMENT,
        standings=(
            m.TournamentLine(
                rank=1,
                name="alice",
                table_points=84,
                score=212,
                places=(1, 1, 0, 0),
                best=150,
                sessions=2,
                dropped=False,
            ),
        ),
        session=2,
        tables=(
            m.TournamentTable(
                session=2,
                number=1,
                players=("alice", "bob", "carol", "dave"),
                table_id=12,
                match_id=90,
                scores=(150, -20, -40, -90),
                table_points=(48, 24, 12, 0),
            ),
        ),
    ),
    m.TournamentSeated(tournament_id=3, session=3, table_number=2, place=1, table_id=15),
    m.CreateTournament(
        id=44,
        name="Thursday club",
        sessions=5,
        hands=8,
        minutes=60,
        drawn=True,
        leaders_last=False,
        spectators=False,
    ),
    m.ManageTournament(id=45, tournament_id=3, action=TournamentAction.DROP, name="dave"),
)

EVENT_EXAMPLES: tuple[m.EventBody, ...] = (
    m.HandStart(
        round_number=1,
        hand_number=2,
        dealer=0,
        seat_winds=(T.E, T.S, T.W, T.N),
        prevailing_wind=T.E,
        dice=DICE,
        second_roller=3,
        break_stack=16,
        commitment=COMMITMENT,
    ),
    m.Deal(seat=0, count=13, tiles=(*CONCEALED[0][:10], T.M1, T.M3, T.F1)),
    m.Deal(seat=1, count=13),
    m.Flower(seat=0, tile=T.F1),
    m.Draw(seat=0, tile=T.C, replacement=True),
    m.Draw(seat=2, replacement=False),
    m.Discard(seat=1, tile=T.M2),
    m.Chow(seat=0, tiles=(T.M1, T.M2, T.M3), claimed_tile=T.M2, from_seat=3),
    m.Pung(seat=1, tiles=(T.E, T.E, T.E), claimed_tile=T.E, from_seat=3),
    m.ExposedKong(seat=2, tiles=(T.P5,) * 4, claimed_tile=T.P5, from_seat=0),
    m.ConcealedKong(seat=3),
    m.ConcealedKong(seat=3, tile=T.F),
    m.AddedKong(seat=1, tile=T.E),
    m.Win(seat=0, from_seat=1, win_tile=T.C, fans=FANS, total=11, points=POINTS),
    m.Win(seat=2, win_tile=T.S5, fans=((39, 1),), total=8, points=(-16, -16, 48, -16)),
    m.ExhaustiveDraw(),
    m.Escape(seat=3),
    m.HandEnd(
        outcome=Outcome.WIN,
        concealed=CONCEALED,
        melds=MELDS,
        wall_order=WALL,
        salt=SALT,
        commitment=COMMITMENT,
        points=POINTS,
    ),
    # Sealed (a duplicate deal still played elsewhere), as seat 1 sees it: its own tiles
    # and the winner's, seat 3's concealed kong face down, no wall yet.
    m.HandEnd(
        outcome=Outcome.WIN,
        concealed=(CONCEALED[0], CONCEALED[1], (), ()),
        melds=(MELDS[0], MELDS[1], (), (None,)),
        commitment=COMMITMENT,
        points=POINTS,
    ),
)
