"""The roles: their prompts (also served as MCP prompts), answer schemas and tool subsets."""
