"""The LTE Cat-1 downlink baseband reference design: RTL, testbenches and their registry."""
