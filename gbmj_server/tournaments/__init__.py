"""Club tournaments run by the server (docs/rules.md §2.12): ``Tournaments`` takes the
host's and the players' requests; each running tournament has a task of its own that
seats its sessions, opens their tables and records their results."""

from gbmj_server.tournaments.runner import TournamentError, Tournaments

__all__ = ["TournamentError", "Tournaments"]
