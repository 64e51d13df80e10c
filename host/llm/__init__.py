"""The LLM gateway: one provider interface over local and cloud models."""
