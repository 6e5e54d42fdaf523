"""Coins, prop items and levels (docs/rules.md §2.5–2.7): the pure parts.

- ``items``: the item kinds registry (shop prices, drops, stack sizes);
- ``levels``: rating thresholds, the level of a rating;
- ``stakes``: who pays whom how many coins after a hand (before the payers' balances cap
  it: the ledger does that inside the settlement's transaction);
- ``counter``: the tile counter's unseen counts from what one seat may see.

The ledger itself (double-entry transfers, the house account) lives in
``gbmj_server.storage``; the server's item and settlement handling in
``gbmj_server.net``.
"""
