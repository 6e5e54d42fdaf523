"""Play over SSH: ``gbmj-server --ssh-port 2222`` lets anyone with an SSH client play.

``service`` runs the asyncssh server (in its own thread and asyncio loop) that gives
each SSH session a pseudo-terminal running the ``gbmj`` client, signed in as the SSH
user; ``keys`` stores the public keys players add; ``handlers`` answers the client's
key requests on the game server. See docs/hosting.md.
"""
