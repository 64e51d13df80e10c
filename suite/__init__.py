"""Facts the servers and the agent host both read: the role prompts and the list of the
suite's servers. Imports nothing of `servers`, `host`, `hdl` or `refmodels`, so either side
can use it without the other."""
