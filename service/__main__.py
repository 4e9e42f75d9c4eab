"""``python -m service`` runs the ``tabletop`` command."""

from service.cli import main

raise SystemExit(main())
