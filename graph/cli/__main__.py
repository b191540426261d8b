"""``python -m cairn.graph.cli`` runs the cairn command."""

from cairn.graph.cli import main

raise SystemExit(main())
