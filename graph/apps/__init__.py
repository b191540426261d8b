"""The applications on top of the Session: the ``cairn`` command (``cli/``), the
Jupyter glue (``notebook/``), the LangGraph server entry (``server``) and the demo
project (``demo/``).  Nothing below this folder imports it.
"""
