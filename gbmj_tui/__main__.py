"""``python -m gbmj_tui [solo] [--ascii] [--lang zh|en]``."""

from gbmj_tui.cli import main

main()
