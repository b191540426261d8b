"""File and search tools: read_file, write_file, edit_file, ls, glob, grep, gitignore.

One module per tool; the small helper modules next to them do one job each
(text decoding, binary sniffing, gitignore rules, the ripgrep binary, diffs).
"""
