"""The five nodes of the agent graph, one module each."""
