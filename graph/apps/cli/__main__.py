"""``python -m cairn.graph.apps.cli`` runs the cairn command."""

from cairn.graph.apps.cli import main

raise SystemExit(main())
