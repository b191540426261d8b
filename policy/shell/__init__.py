"""The shell command classifier: bashlex parse, walk, and per-command tables."""
