"""gbmj's terminal client: a Textual app (screens, widgets, styles, the connection).

The client speaks only ``protocol``; it never imports the server.
"""
