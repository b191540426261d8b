"""The ``cairn`` subcommands: one module per command (``COMMANDS`` in this package
names them), and helpers of one command that share its name (``show_rewinds``).
"""
