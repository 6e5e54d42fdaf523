"""Play in a browser: ``gbmj-server --web-port PORT`` serves the gbmj client as a web
page (``service``), with the host's ``web_*`` settings (``config``)."""
