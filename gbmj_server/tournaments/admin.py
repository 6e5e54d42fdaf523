"""The host's tournament commands, as the admin socket receives them (one JSON object:
``{"command": "tournament", "action": "create", "name": ..., ...}``). Every field is
checked for its type and range here; a bad one is refused and nothing changes."""

from __future__ import annotations

from typing import Any

from gbmj_server.tournaments.runner import Settings, TournamentError, Tournaments

# create's optional fields: name -> type (bools are not ints here)
CREATE_FIELDS: dict[str, type] = {
    "sessions": int,
    "hands": int,
    "minutes": int,
    "drawn": bool,
    "seed": int,
    "leaders_last": bool,
    "absent_counts": bool,
    "spectators": bool,
    "turn_seconds": int,
    "grace_seconds": int,
    "pause_seconds": int,
    "duplicate": bool,
    "scale": str,
}
ACTIONS = ("create", "open", "close", "start", "drop")


def _field(request: dict[str, Any], key: str, kind: type) -> Any:
    value = request.get(key)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TournamentError(f"{key} must be a whole number")
    if kind is not int and not isinstance(value, kind):
        raise TournamentError(f"{key} must be a {kind.__name__}")
    return value


async def run_admin(tournaments: Tournaments, request: dict[str, Any]) -> str:
    """Do one tournament command of the host; its answer, or ``TournamentError``."""
    action = request.get("action")
    if action not in ACTIONS:
        raise TournamentError(f"a tournament action is one of {', '.join(ACTIONS)}")
    if action == "create":
        options = {
            key: _field(request, key, kind)
            for key, kind in CREATE_FIELDS.items()
            if request.get(key) is not None
        }
        settings = Settings(name=_field(request, "name", str), **options)
        organiser = request.get("organiser", "host")
        if not isinstance(organiser, str) or not 1 <= len(organiser) <= 24:
            raise TournamentError("organiser must be a name of 1-24 characters")
        record = await tournaments.create(organiser, settings)
        return f"tournament {record.id} created: {record.name}, registration open"
    tournament_id = _field(request, "id", int)
    if action in ("open", "close"):
        return await tournaments.registration(tournament_id, action == "open")
    if action == "start":
        return await tournaments.start(tournament_id)
    return await tournaments.drop(tournament_id, _field(request, "name", str))
