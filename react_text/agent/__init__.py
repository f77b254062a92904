"""The ReAct agent: the loop's pure policy and the Agent that runs it."""
