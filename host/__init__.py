"""The agent host: drives role-prompted LLMs through the MCP servers until a block passes."""
