"""The observation layouts as data (``observation_fields``) against the envs' documented
tables and their spaces: the docs cannot drift from the layout a model file hashes."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.envs.holdem import HoldemEnv
from poker_env.envs.red_dog import RedDogEnv
from poker_env.episode import draw, holdem, red_dog
from poker_env.episode.layout import ObsField


def _slices(doc: str, symbol: str, value: int, features: bool = True) -> list[tuple[int, int]]:
    """The slice column of the docstring's observation table, evaluated at ``symbol = value``."""
    section = doc.split("## Observation Space")[1].split("## Action Mask")[0]
    out = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        cell = cells[0].strip("[]").replace(" ", "")
        if len(cells) < 3 or not re.fullmatch(r"[0-9nP+:]+", cell):
            continue
        if "(evaluator_features)" in cells[1] and not features:
            continue
        ends = [
            int(eval(re.sub(r"(\d)" + symbol, r"\1*" + symbol, e), {symbol: value}))
            for e in cell.split(":")
        ]
        out.append((ends[0], ends[-1] if len(ends) == 2 else ends[0] + 1))
    return out


def _bounds(fields: tuple[ObsField, ...], size: int) -> list[tuple[int, int]]:
    assert fields[0].start == 0 and fields[-1].stop == size
    assert all(a.stop == b.start for a, b in itertools.pairwise(fields))
    assert len({f.name for f in fields}) == len(fields)
    return [(f.start, f.stop) for f in fields]


def test_draw_table_is_the_layout() -> None:
    fields = draw.observation_fields()
    for cls in (FiveCardDrawEnv, DrawMatchEnv):
        assert _slices(cls.__doc__ or "", "n", 0) == _bounds(fields, draw.OBS_SIZE)
        assert cls().observation_space.shape == (draw.OBS_SIZE,)


@pytest.mark.parametrize("players", [2, 4, 10])
def test_red_dog_table_is_the_layout(players: int) -> None:
    fields = red_dog.observation_fields(players)
    size = red_dog.obs_size(players)
    assert _slices(RedDogEnv.__doc__ or "", "P", players) == _bounds(fields, size)
    assert RedDogEnv(num_players=players).observation_space.shape == (size,)


@pytest.mark.parametrize("features", [False, True])
@pytest.mark.parametrize("seats", [2, 6, 10])
def test_holdem_table_is_the_layout(seats: int, features: bool) -> None:
    fields = holdem.observation_fields(seats, features)
    size = holdem.obs_size(seats, features)
    assert _slices(HoldemEnv.__doc__ or "", "n", seats, features) == _bounds(fields, size)
    space = HoldemEnv(seats, evaluator_features=features).observation_space
    assert space.shape == (size,)
    # The fields' meaning is where the observation puts it: the equity is a share.
    if features:
        assert fields[-1].name == "equity"
        assert np.all(space.high[fields[-1].start : fields[-1].stop] == 1)
