"""The planning phase: from an engineer's prompt to a frozen specification, an approved
block plan and the design file that `agent-host run` executes."""
