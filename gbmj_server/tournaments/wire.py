"""A tournament in the protocol's words, and as the host's export (CSV and JSON)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from gbmj.tournament.duplicate import scale_of
from gbmj.tournament.points import shown
from gbmj.tournament.standings import ranks
from gbmj_server.storage.tournaments import SessionTable, TournamentRecord
from gbmj_server.tournaments.runner import Detail, duplicate_deals
from protocol import messages as m
from protocol.vocabulary import TournamentState


def info(t: TournamentRecord, entrants: int, entered: bool) -> m.TournamentInfo:
    return m.TournamentInfo(
        tournament_id=t.id,
        name=t.name,
        organiser=t.organiser[:24],
        state=TournamentState(t.state),
        sessions=t.sessions,
        session=t.current,
        hands=t.hands,
        minutes=t.minutes,
        entrants=entrants,
        entered=entered,
    )


def lines(detail: Detail) -> list[m.TournamentLine]:
    dropped = {e.n for e in detail.entrants if e.dropped}
    return [
        m.TournamentLine(
            rank=rank,
            name=detail.name_of(line.player),
            table_points=line.table_points,
            score=line.score,
            places=line.places,
            best=line.best,
            sessions=line.sessions,
            dropped=line.player in dropped,
        )
        for rank, line in zip(ranks(detail.standings), detail.standings, strict=True)
    ]


def tables(detail: Detail, session: int) -> list[m.TournamentTable]:
    """The tables of ``session``, with their results once written."""
    result = []
    for table in detail.tables:
        if table.session != session:
            continue
        mine = {
            r.n: r
            for r in detail.results
            if r.session == session and r.table_number == table.number
        }
        done = table.match_id is not None or bool(mine)
        result.append(
            m.TournamentTable(
                session=session,
                number=table.number,
                players=tuple(detail.name_of(n) for n in table.players),
                table_id=table.table_id,
                match_id=table.match_id,
                scores=tuple(mine[n].score if n in mine else 0 for n in table.players)
                if done
                else None,
                table_points=tuple(mine[n].table_points if n in mine else 0 for n in table.players)
                if done
                else None,
                absent=tuple(n in table.absent for n in table.players) if table.absent else None,
            )
        )
    return result


def detail_message(detail: Detail, account_id: int | None, session: int | None) -> m.Message:
    t = detail.record
    entered = any(e.account_id == account_id for e in detail.entrants)
    shown_session = t.current if session is None else session
    return m.TournamentDetail(
        tournament=info(t, len(detail.entrants), entered),
        standings=tuple(lines(detail)),
        session=shown_session,
        tables=tuple(tables(detail, shown_session)) if shown_session else (),
        deals=deal_commitments(t, [x for x in detail.tables if x.session == shown_session]),
        scale=scale_steps(t),
    )


def scale_steps(t: TournamentRecord) -> tuple[int, ...] | None:
    """A duplicate tournament's step scale's thresholds (empty: raw); None for another."""
    if not t.duplicate:
        return None
    scale = scale_of(t.scale)
    return () if scale is None else scale.steps


def deal_commitments(
    t: TournamentRecord, session_tables: Sequence[SessionTable]
) -> tuple[str, ...] | None:
    """The commitments of a duplicate session's deals (their walls bound to hand k of
    match 0): whoever kept them checks, once the walls are revealed, that every table
    played the deals promised."""
    deals = duplicate_deals(t, session_tables)
    if not deals:
        return None
    return tuple(d.walls(0, k + 1).commitment for k, d in enumerate(deals))


# -- the host's export -------------------------------------------------------------------
STANDINGS_COLUMNS = (
    "rank",
    "name",
    "table_points",
    "score",
    "firsts",
    "seconds",
    "thirds",
    "fourths",
    "best",
    "sessions",
    "dropped",
)
RESULTS_COLUMNS = (
    "session",
    "table",
    "place",
    "name",
    "score",
    "table_points",
    "finish",
    "absent",
    "match_id",
)
PLACES = ("East", "South", "West", "North")


def export_json(detail: Detail) -> dict[str, Any]:
    """The standings and every session's results, table points divided by 12 (as
    shown) beside the exact ×12 figures."""
    t = detail.record
    standings = [
        {
            "rank": line.rank,
            "name": line.name,
            "table_points": shown(line.table_points),
            "table_points_x12": line.table_points,
            "score": line.score,
            "places": list(line.places),
            "best": line.best,
            "sessions": line.sessions,
            "dropped": line.dropped,
        }
        for line in lines(detail)
    ]
    sessions = []
    for number in range(1, t.current + 1):
        sessions.append(
            {
                "session": number,
                "tables": [
                    {
                        "table": table.number,
                        "table_id": table.table_id,
                        "match_id": table.match_id,
                        "players": _seat_rows(detail, number, table.number),
                    }
                    for table in detail.tables
                    if table.session == number
                ],
            }
        )
    return {
        "tournament": {
            "id": t.id,
            "name": t.name,
            "organiser": t.organiser,
            "state": t.state,
            "sessions": t.sessions,
            "hands": t.hands,
            "minutes": t.minutes,
            "duplicate": t.duplicate,
            "scale": t.scale if t.duplicate else None,
        },
        "standings": standings,
        "sessions": sessions,
    }


def _seat_rows(detail: Detail, session: int, number: int) -> list[dict[str, Any]]:
    table = next(x for x in detail.tables if x.session == session and x.number == number)
    results = {r.n: r for r in detail.results if r.session == session and r.table_number == number}
    rows = []
    for place, n in enumerate(table.players):
        r = results.get(n)
        rows.append(
            {
                "place": PLACES[place],
                "name": detail.name_of(n),
                "score": None if r is None else r.score,
                "table_points": None if r is None else shown(r.table_points),
                "table_points_x12": None if r is None else r.table_points,
                "finish": None if r is None else r.place,
                "absent": n in table.absent,
            }
        )
    return rows


def export_csv(detail: Detail) -> tuple[str, str]:
    """Two CSV files' text: the standings, and every session's results (one row a
    player a session)."""
    standings = io.StringIO()
    writer = csv.writer(standings)
    writer.writerow(STANDINGS_COLUMNS)
    for line in lines(detail):
        writer.writerow(
            (
                line.rank,
                line.name,
                shown(line.table_points),
                line.score,
                *line.places,
                line.best,
                line.sessions,
                int(line.dropped),
            )
        )
    results = io.StringIO()
    writer = csv.writer(results)
    writer.writerow(RESULTS_COLUMNS)
    data = export_json(detail)
    for session in data["sessions"]:
        for table in session["tables"]:
            for row in table["players"]:
                writer.writerow(
                    (
                        session["session"],
                        table["table"],
                        row["place"],
                        row["name"],
                        row["score"],
                        row["table_points"],
                        row["finish"],
                        int(row["absent"]),
                        table["match_id"],
                    )
                )
    return standings.getvalue(), results.getvalue()


def dumps(detail: Detail) -> str:
    return json.dumps(export_json(detail), ensure_ascii=False, indent=2)
