"""``python -m gbmj_server``: the same as the ``gbmj-server`` command."""

import sys

from gbmj_server.cli import main

sys.exit(main())
