"""What the three faces of a game share (single env, AEC env, batched env).

One module per game: the observation layout, the action map, the compiled
episode step (reset, step, the built-in opponents, the reward), the hand records
and the text renders. See ``docs/architecture.md``.
"""
