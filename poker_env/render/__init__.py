"""What a person sees: the pictures (``render_mode="rgb_array"``) over one canvas.

- :mod:`poker_env.render.canvas`: the drawing pieces (cards, chips, text, the table
  pieces every game shares) on uint8 arrays.
- :mod:`poker_env.render.draw`, :mod:`poker_env.render.red_dog`,
  :mod:`poker_env.render.holdem`: each game's table from one seat's view.
"""
