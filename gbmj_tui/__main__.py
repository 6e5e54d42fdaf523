"""``python -m gbmj_tui [solo] [--ascii] [--lang zh|en]``."""

from gbmj_tui.app import main

main()
