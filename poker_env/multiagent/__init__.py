"""multiagent layer of poker_env (see DESIGN.md)."""
