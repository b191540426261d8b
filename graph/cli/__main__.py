"""``python -m graph.cli`` runs the cairn command."""

from graph.cli import main

raise SystemExit(main())
