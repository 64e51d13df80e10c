"""The design loop's steps, one module per kind of work; `host/loop.py` dispatches them."""
