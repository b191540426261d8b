"""The terminal UI: consoles, the prompt, live rendering, streamed Markdown, diffs,
approval questions and the interactive session.
"""
