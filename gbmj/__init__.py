"""The game itself, pure: the rules and the fan calculator, one hand and one match as
state machines, the bots, the coin and item rules. No I/O and no clock: the server
(``gbmj_server``) drives it, the client (``gbmj_tui``) may read it, tools replay it.
"""
