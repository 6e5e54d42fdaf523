"""The wire vocabulary shared by the server and the client.

Sans-IO: this package turns bytes into messages and messages into bytes and owns the
small tables both sides need (tile codes, fan ids). It imports nothing from the rest of
gbmj and does no I/O.
"""
