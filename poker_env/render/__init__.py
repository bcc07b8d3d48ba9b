"""What a person sees: the pictures (``render_mode="rgb_array"``) over one canvas.

- :mod:`poker_env.render.canvas`: the drawing pieces (cards, chips, text) on uint8 arrays.
- :mod:`poker_env.render.tables`: each game's table from one seat's view.
"""
