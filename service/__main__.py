"""``python -m tabletop_server.service`` runs the ``tabletop`` command."""

from tabletop_server.service.cli import main

raise SystemExit(main())
