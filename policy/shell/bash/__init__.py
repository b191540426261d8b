"""The bash front end of the shell classifier: scanning and rewriting the text for the parser
(``scanner``, ``rewrite``, ``ansi``, ``static``), expanding words as bash would as far as that
can be known (``words``, ``wordtypes``, ``params``, ``braces``, ``arith``), and walking the
parsed tree (``walker`` with its mixins ``wordctx``, ``effects``, ``process`` and its ``state``).

:mod:`cairn.policy.shell.analysis` is the entry point; what each program may do is in
:mod:`cairn.policy.shell.programs` and the handlers beside it.
"""
