"""Pictures of card tables with numpy: a canvas, a bitmap font, cards and chips.

The envs' ``render_mode="rgb_array"`` draws with these pieces (the tables of each
game are in :mod:`poker_env.render.draw`, ``red_dog`` and ``holdem``). A picture is an ``(H, W, 3)``
uint8 array, the form Gymnasium's ``RecordVideo`` and SB3's ``make_vec_env``
expect. No imaging library: everything that does not change between frames (the
felt, card faces and backs, chips, text masks) is drawn once with numpy and cached
as a premultiplied sprite; a frame copies the felt and lays sprites and text over
it with two small compiled loops (numba, as the rules core), a few milliseconds.

Text uses a 5x7 pixel font (cells 5 wide and 9 tall, two rows for descenders)
written below as data, scaled by whole pixels; shapes (suits, chips, the table)
are drawn 4x supersampled, so their edges are smooth.

>>> img = new_picture(40, 120)
>>> draw_text(img, 4, 4, "Pot 12", TEXT, scale=2)
70
>>> img.shape, img.dtype.name
((40, 120, 3), 'uint8')
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = [
    "BLACK_SUIT",
    "CARD_SIZES",
    "GOLD",
    "HEADER_Y",
    "HEIGHT",
    "LOSS",
    "PANEL",
    "PANEL_ALPHA",
    "RANK_TEXT",
    "RED_SUIT",
    "TAG_LOST",
    "TAG_STAKE",
    "TAG_WORN",
    "TEXT",
    "TURN",
    "WIDTH",
    "WIN",
    "Color",
    "Image",
    "Sprite",
    "banner",
    "blend_rect",
    "card_size",
    "draw_button",
    "draw_card",
    "draw_card_back",
    "draw_card_slot",
    "draw_chips",
    "draw_mini_card",
    "draw_sprite",
    "draw_text",
    "fit",
    "hand_row",
    "make_sprite",
    "mini_cards_width",
    "new_picture",
    "panel",
    "png_bytes",
    "save_png",
    "seat_centres",
    "table_felt",
    "text_width",
]

Color = tuple[int, int, int]
Image = NDArray[np.uint8]

# Colours of the table (a dark room, a wooden rail, green felt) and of the cards.
ROOM: Color = (18, 22, 30)
RAIL: Color = (96, 58, 32)
FELT: Color = (28, 118, 72)
FELT_EDGE: Color = (14, 70, 44)
TEXT: Color = (238, 238, 228)
DIM: Color = (160, 176, 164)
GOLD: Color = (246, 200, 82)
SHADOW: Color = (8, 20, 14)
CARD_FACE: Color = (250, 249, 244)
CARD_EDGE: Color = (120, 120, 120)
RED_SUIT: Color = (204, 28, 44)
BLACK_SUIT: Color = (26, 26, 32)
BACK_BASE: Color = (38, 56, 140)
BACK_LINE: Color = (86, 112, 200)

#: Card sizes in pixels (width, height) by name.
CARD_SIZES: dict[str, tuple[int, int]] = {"S": (32, 44), "M": (44, 62), "L": (60, 84)}

# ----------------------------------------------------------------------------- font
# One glyph a line: the character, then its rows top to bottom, 5 pixels each
# ('#' ink, '.' none). Capitals and digits are 7 rows; rows 8-9 hold descenders.
# Rows left out are blank.
_GLYPHS = """
A .###. #...# #...# ##### #...# #...# #...#
B ####. #...# #...# ####. #...# #...# ####.
C .###. #...# #.... #.... #.... #...# .###.
D ####. #...# #...# #...# #...# #...# ####.
E ##### #.... #.... ####. #.... #.... #####
F ##### #.... #.... ####. #.... #.... #....
G .###. #...# #.... #.### #...# #...# .####
H #...# #...# #...# ##### #...# #...# #...#
I .###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
J ..### ...#. ...#. ...#. ...#. #..#. .##..
K #...# #..#. #.#.. ##... #.#.. #..#. #...#
L #.... #.... #.... #.... #.... #.... #####
M #...# ##.## #.#.# #.#.# #...# #...# #...#
N #...# #...# ##..# #.#.# #..## #...# #...#
O .###. #...# #...# #...# #...# #...# .###.
P ####. #...# #...# ####. #.... #.... #....
Q .###. #...# #...# #...# #.#.# #..#. .##.#
R ####. #...# #...# ####. #.#.. #..#. #...#
S .#### #.... #.... .###. ....# ....# ####.
T ##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
U #...# #...# #...# #...# #...# #...# .###.
V #...# #...# #...# #...# #...# .#.#. ..#..
W #...# #...# #...# #.#.# #.#.# #.#.# .#.#.
X #...# #...# .#.#. ..#.. .#.#. #...# #...#
Y #...# #...# .#.#. ..#.. ..#.. ..#.. ..#..
Z ##### ....# ...#. ..#.. .#... #.... #####
a ..... ..... .###. ....# .#### #...# .####
b #.... #.... ####. #...# #...# #...# ####.
c ..... ..... .###. #.... #.... #...# .###.
d ....# ....# .#### #...# #...# #...# .####
e ..... ..... .###. #...# ##### #.... .###.
f ..##. .#..# .#... ###.. .#... .#... .#...
g ..... ..... .#### #...# #...# #...# .#### ....# .###.
h #.... #.... #.##. ##..# #...# #...# #...#
i ..#.. ..... .##.. ..#.. ..#.. ..#.. .###.
j ...#. ..... ..##. ...#. ...#. ...#. ...#. #..#. .##..
k #.... #.... #..#. #.#.. ##... #.#.. #..#.
l .##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
m ..... ..... ##.#. #.#.# #.#.# #.#.# #.#.#
n ..... ..... #.##. ##..# #...# #...# #...#
o ..... ..... .###. #...# #...# #...# .###.
p ..... ..... ####. #...# #...# #...# ####. #.... #....
q ..... ..... .#### #...# #...# #...# .#### ....# ....#
r ..... ..... #.##. ##..# #.... #.... #....
s ..... ..... .###. #.... .###. ....# ####.
t .#... .#... ###.. .#... .#... .#..# ..##.
u ..... ..... #...# #...# #...# #..## .##.#
v ..... ..... #...# #...# #...# .#.#. ..#..
w ..... ..... #...# #...# #.#.# #.#.# .#.#.
x ..... ..... #...# .#.#. ..#.. .#.#. #...#
y ..... ..... #...# #...# #...# #...# .#### ....# .###.
z ..... ..... ##### ...#. ..#.. .#... #####
0 .###. #...# #..## #.#.# ##..# #...# .###.
1 ..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.
2 .###. #...# ....# ...#. ..#.. .#... #####
3 ####. ....# ....# .###. ....# ....# ####.
4 ...#. ..##. .#.#. #..#. ##### ...#. ...#.
5 ##### #.... ####. ....# ....# #...# .###.
6 ..##. .#... #.... ####. #...# #...# .###.
7 ##### ....# ...#. ..#.. .#... .#... .#...
8 .###. #...# #...# .###. #...# #...# .###.
9 .###. #...# #...# .#### ....# ...#. .##..
! ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..
" .#.#. .#.#.
# .#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.
$ ..#.. .#### #.#.. .###. ..#.# ####. ..#..
% ##..# ##..# ...#. ..#.. .#... #..## #..##
& .##.. #..#. #.#.. .#... #.#.# #..#. .##.#
' ..#.. ..#.. .#...
( ...#. ..#.. .#... .#... .#... ..#.. ...#.
) .#... ..#.. ...#. ...#. ...#. ..#.. .#...
* ..... ..#.. #.#.# .###. #.#.# ..#..
+ ..... ..#.. ..#.. ##### ..#.. ..#..
, ..... ..... ..... ..... ..... .##.. .##.. ..#.. .#...
- ..... ..... ..... .###.
. ..... ..... ..... ..... ..... .##.. .##..
/ ....# ....# ...#. ..#.. .#... #.... #....
: ..... .##.. .##.. ..... .##.. .##..
; ..... .##.. .##.. ..... .##.. .##.. ..#.. .#...
< ...#. ..#.. .#... #.... .#... ..#.. ...#.
= ..... ..... ##### ..... #####
> .#... ..#.. ...#. ....# ...#. ..#.. .#...
? .###. #...# ....# ...#. ..#.. ..... ..#..
@ .###. #...# #.### #.#.# #.### #.... .####
[ .###. .#... .#... .#... .#... .#... .###.
\\ #.... #.... .#... ..#.. ...#. ....# ....#
] .###. ...#. ...#. ...#. ...#. ...#. .###.
^ ..#.. .#.#. #...#
_ ..... ..... ..... ..... ..... ..... #####
` .#... ..#..
{ ...#. ..#.. ..#.. .#... ..#.. ..#.. ...#.
| ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
} .#... ..#.. ..#.. ...#. ..#.. ..#.. .#...
~ ..... ..... .#... #.#.# ...#.
♣ ..... .###. .###. ##### ##### ..#.. .###.
♦ ..... ..#.. .###. ##### .###. ..#..
♥ ..... .#.#. ##### ##### .###. ..#..
♠ ..... ..#.. .###. ##### ##### ..#.. .###.
▶ #.... ##... ###.. ####. ###.. ##... #....
"""

FONT_W = 5  # glyph width in pixels at scale 1
FONT_H = 9  # cell height (7 rows above the baseline, 2 below)
_ADVANCE = FONT_W + 1


def _parse_glyphs(data: str) -> dict[str, NDArray[np.bool_]]:
    glyphs: dict[str, NDArray[np.bool_]] = {" ": np.zeros((FONT_H, FONT_W), np.bool_)}
    for line in data.strip("\n").splitlines():
        # "\\" is written escaped in the data; every other glyph is one character.
        char, rows = (line[0], line[2:]) if line[1] == " " else (line[1], line[3:])
        bits = np.zeros((FONT_H, FONT_W), np.bool_)
        for r, row in enumerate(rows.split()):
            bits[r] = [c == "#" for c in row]
        glyphs[char] = bits
    return glyphs


_FONT = _parse_glyphs(_GLYPHS)
_UNKNOWN = _FONT["?"]


def text_width(text: str, scale: int = 1) -> int:
    """Width in pixels of ``text`` drawn at ``scale``."""
    return max(0, len(text) * _ADVANCE * scale - scale)


@lru_cache(maxsize=4096)
def _text_mask(text: str, scale: int) -> NDArray[np.bool_]:
    # Glyphs side by side with one blank column between, then each pixel scale x scale.
    cols: list[NDArray[np.bool_]] = []
    gap = np.zeros((FONT_H, 1), np.bool_)
    for i, ch in enumerate(text):
        if i:
            cols.append(gap)
        cols.append(_FONT.get(ch, _UNKNOWN))
    mask = np.concatenate(cols, axis=1) if cols else np.zeros((FONT_H, 0), np.bool_)
    if scale > 1:
        mask = mask.repeat(scale, axis=0).repeat(scale, axis=1)
    mask.setflags(write=False)
    return mask


@njit(cache=True, _nrt=False)
def _paint(
    img: Image, x: int, y: int, mask: NDArray[np.bool_], r: int, g: int, b: int
) -> None:  # pragma: no cover - compiled
    # Ink where the mask is set, clipped to the picture (a label half outside is
    # drawn in part, never wraps around).
    h, w = mask.shape
    for i in range(max(0, -y), min(h, img.shape[0] - y)):
        for j in range(max(0, -x), min(w, img.shape[1] - x)):
            if mask[i, j]:
                img[y + i, x + j, 0] = r
                img[y + i, x + j, 1] = g
                img[y + i, x + j, 2] = b


def _paint_mask(img: Image, x: int, y: int, mask: NDArray[np.bool_], color: Color) -> None:
    _paint(img, int(x), int(y), mask, color[0], color[1], color[2])


def draw_text(
    img: Image,
    x: int,
    y: int,
    text: str,
    color: Color,
    scale: int = 1,
    *,
    align: str = "left",
    shadow: bool = False,
) -> int:
    """Write ``text`` with its top at ``y``; ``align`` says where ``x`` is
    (``"left"``, ``"center"``, ``"right"``). Returns the text's width in pixels.

    ``shadow`` draws a dark copy one pixel down-right first, so light text stays
    readable on the felt.
    """
    mask = _text_mask(text, scale)
    w = int(mask.shape[1])
    if align == "center":
        x -= w // 2
    elif align == "right":
        x -= w
    if shadow:
        _paint_mask(img, x + scale, y + scale, mask, SHADOW)
    _paint_mask(img, x, y, mask, color)
    return w


# ----------------------------------------------------------------------------- shapes
def _coverage(
    w: int, h: int, inside: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]
) -> NDArray[np.float32]:
    # 4x4 samples a pixel, at pixel coordinates (x right, y down, 0 at the top-left corner).
    ss = 4
    xs = (np.arange(w * ss) + 0.5) / ss
    ys = (np.arange(h * ss) + 0.5) / ss
    gx, gy = np.meshgrid(xs, ys)
    hit = inside(gx, gy).astype(np.float32)
    out: NDArray[np.float32] = hit.reshape(h, ss, w, ss).mean(axis=(1, 3), dtype=np.float32)
    return out


def _rounded_rect(w: int, h: int, r: float) -> NDArray[np.float32]:
    # Coverage from the exact distance to the edge (a pixel half inside is half
    # covered): as smooth as supersampling, and cheap for large panels.
    x = np.arange(w, dtype=np.float32) + np.float32(0.5)
    y = np.arange(h, dtype=np.float32) + np.float32(0.5)
    dx = np.maximum(np.maximum(r - x, x - (w - r)), 0)[None, :]
    dy = np.maximum(np.maximum(r - y, y - (h - r)), 0)[:, None]
    inside = np.minimum(np.minimum(x, w - x)[None, :], np.minimum(y, h - y)[:, None])
    corner = r - np.sqrt(dx * dx + dy * dy)
    dist = np.where((dx > 0) & (dy > 0), corner, inside)
    out: NDArray[np.float32] = np.clip(dist, 0, 1).astype(np.float32)
    return out


def _oval(h: int, w: int, cx: float, cy: float, ax: float, ay: float) -> NDArray[np.float32]:
    # Coverage of an ellipse from its approximate distance (f - 1) / |grad f| in pixels.
    x = (np.arange(w, dtype=np.float32) + np.float32(0.5) - np.float32(cx))[None, :]
    y = (np.arange(h, dtype=np.float32) + np.float32(0.5) - np.float32(cy))[:, None]
    g = np.sqrt((x / ax) ** 2 + (y / ay) ** 2)
    grad = np.sqrt((x / ax**2) ** 2 + (y / ay**2) ** 2) / np.maximum(g, 1e-6)
    dist = (1 - g) / np.maximum(grad, 1e-6)
    out: NDArray[np.float32] = np.clip(dist + 0.5, 0, 1).astype(np.float32)
    return out


@lru_cache(maxsize=64)
def _suit_shape(suit: int, size: int) -> NDArray[np.float32]:
    """Coverage of a suit symbol (0 clubs, 1 diamonds, 2 hearts, 3 spades) in a square."""

    def inside(px: NDArray[np.float64], py: NDArray[np.float64]) -> NDArray[np.bool_]:
        # Unit coordinates: x in [-1, 1] right, y in [-1, 1] up.
        x = px / size * 2 - 1
        y = 1 - py / size * 2
        if suit == 1:  # diamond, taller than wide
            return np.asarray(np.abs(x) / 0.72 + np.abs(y) / 0.98 <= 1)
        if suit == 2:  # heart: two lobes over a point
            hx, hy = x * 1.18, y * 1.18 + 0.05
            return np.asarray((hx * hx + hy * hy - 1) ** 3 - hx * hx * hy**3 <= 0)
        # A stem that flares towards its foot.
        stem = (np.abs(x) <= 0.1 + 0.4 * (-0.3 - y)) & (y <= -0.3) & (y >= -0.96)
        if suit == 3:  # spade: a heart upside down, on a stem
            hx, hy = x * 1.4, -(y - 0.27) * 1.4
            return np.asarray(((hx * hx + hy * hy - 1) ** 3 - hx * hx * hy**3 <= 0) | stem)
        # club: three leaves on a stem
        r = 0.34
        c1 = x * x + (y - 0.42) ** 2 <= r * r
        c2 = (x + 0.4) ** 2 + (y + 0.12) ** 2 <= r * r
        c3 = (x - 0.4) ** 2 + (y + 0.12) ** 2 <= r * r
        core = (np.abs(x) <= 0.2) & (y > -0.3) & (y < 0.4)
        return np.asarray(c1 | c2 | c3 | core | stem)

    return _coverage(size, size, inside)


class Sprite(NamedTuple):
    """A picture with soft edges, ready to draw: colour premultiplied by alpha.

    Alpha is in 1/256 steps, both arrays (h, 3 w) (a row's channels side by side):
    ``pre`` = colour x alpha, ``inv`` = 256 - alpha; a channel drawn becomes
    ``(old x inv + pre) / 256`` (exact for alpha 0 and 1).
    """

    pre: NDArray[np.uint16]
    inv: NDArray[np.uint16]

    @property
    def width(self) -> int:
        """Width in pixels."""
        return int(self.inv.shape[1]) // 3

    @property
    def height(self) -> int:
        """Height in pixels."""
        return int(self.inv.shape[0])


def make_sprite(rgb: NDArray[np.floating], alpha: NDArray[np.floating]) -> Sprite:
    """A sprite from straight colour (h, w, 3) in 0..255 and alpha (h, w) in 0..1."""
    a = np.rint(np.clip(alpha, 0, 1) * 256).astype(np.uint16)
    h, w = a.shape
    pre = np.rint(np.asarray(rgb, np.float64) * a[..., None]).astype(np.uint16).reshape(h, 3 * w)
    inv = np.repeat(256 - a, 3, axis=1).astype(np.uint16)
    pre.setflags(write=False)
    inv.setflags(write=False)
    return Sprite(pre, inv)


@njit(cache=True, _nrt=False)
def _blit(
    img: Image, x: int, y: int, pre: NDArray[np.uint16], inv: NDArray[np.uint16]
) -> None:  # pragma: no cover - compiled
    # Alpha over the picture, clipped to it. One flat loop per row over its channels,
    # in uint16 and without a branch, so that the compiler vectorizes it (10x faster
    # than int32 arithmetic); old x inv + pre <= 255 x 256 fits. Clear pixels have
    # inv 256 and pre 0: unchanged.
    h = inv.shape[0]
    w = inv.shape[1] // 3
    j0 = max(0, -x)
    j1 = min(w, img.shape[1] - x)
    if j1 <= j0:
        return
    width3 = img.shape[1] * 3
    for i in range(max(0, -y), min(h, img.shape[0] - y)):
        row = img[y + i].reshape(width3)[3 * (x + j0) : 3 * (x + j1)]
        p = pre[i, 3 * j0 : 3 * j1]
        k = inv[i, 3 * j0 : 3 * j1]
        for c in range(row.shape[0]):
            row[c] = np.uint8((np.uint16(row[c]) * k[c] + p[c]) >> np.uint16(8))


def draw_sprite(img: Image, x: int, y: int, sprite: Sprite) -> None:
    """Draw ``sprite`` with its top-left corner at (x, y) (clipped to the picture).

    ``img`` must be C-contiguous (as :func:`new_picture` and :func:`table_felt` make it).
    """
    _blit(img, int(x), int(y), sprite.pre, sprite.inv)


def _blend(
    img: Image, x: int, y: int, rgb: NDArray[np.floating], alpha: NDArray[np.floating]
) -> None:
    # One-off drawing (building cached pictures): make the sprite and draw it.
    draw_sprite(img, x, y, make_sprite(rgb, alpha))


def _solid(h: int, w: int, color: Color) -> NDArray[np.float32]:
    return np.broadcast_to(np.asarray(color, np.float32), (h, w, 3))


def blend_rect(
    img: Image, x: int, y: int, w: int, h: int, color: Color, alpha: float = 1.0, radius: int = 0
) -> None:
    """A rectangle of ``color`` over the picture at opacity ``alpha``, corners rounded."""
    draw_sprite(img, x, y, _rect_sprite(int(w), int(h), tuple(color), float(alpha), int(radius)))


@lru_cache(maxsize=512)
def _rect_sprite(w: int, h: int, color: Color, alpha: float, radius: int) -> Sprite:
    a = _rect_alpha(w, h, radius) * np.float32(alpha)
    return make_sprite(_solid(h, w, color), a)


@lru_cache(maxsize=256)
def _rect_alpha(w: int, h: int, radius: int) -> NDArray[np.float32]:
    if radius <= 0:
        return np.ones((h, w), np.float32)
    return _rounded_rect(w, h, float(radius))


def new_picture(h: int, w: int, color: Color = ROOM) -> Image:
    """A blank ``(h, w, 3)`` uint8 picture of one colour."""
    img = np.empty((h, w, 3), np.uint8)
    img[...] = color
    return img


@lru_cache(maxsize=8)
def _felt(h: int, w: int, box: tuple[int, int, int, int]) -> Image:
    img = new_picture(h, w)
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ax, ay = (x1 - x0) / 2, (y1 - y0) / 2
    rail = 16  # width of the wooden rail

    def oval(sx: float, sy: float) -> NDArray[np.float32]:
        return _oval(h, w, cx, cy, sx, sy)

    _blend(img, 0, 0, _solid(h, w, RAIL), oval(ax, ay))
    # The felt: lighter in the middle, as under a lamp.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.sqrt(((xx - cx) / (ax - rail)) ** 2 + ((yy - cy) / (ay - rail)) ** 2)
    t = np.clip(d, 0, 1)[..., None] ** 1.5
    shade = np.asarray(FELT, np.float32) * (1 - t) + np.asarray(FELT_EDGE, np.float32) * t
    _blend(img, 0, 0, shade.astype(np.float32), oval(ax - rail, ay - rail))
    img.setflags(write=False)
    return img


def table_felt(h: int, w: int, box: tuple[int, int, int, int] | None = None) -> Image:
    """A fresh ``(h, w, 3)`` picture of a card table: a dark room, and a wooden rail
    around green felt filling the oval inscribed in ``box`` = (x0, y0, x1, y1)
    (default: the whole picture). Drawn once per size, then copied."""
    return _felt(h, w, box if box is not None else (0, 0, w, h)).copy()


# ----------------------------------------------------------------------------- cards
def card_size(size: str) -> tuple[int, int]:
    """(width, height) of a card of size ``"S"``, ``"M"`` or ``"L"``."""
    return CARD_SIZES[size]


RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
# Per card size: (corner inset, corner pip size, centre pip size, upside-down corner too).
_CARD_LAYOUT: dict[str, tuple[int, int, int, bool]] = {
    "S": (3, 0, 14, False),
    "M": (3, 10, 20, False),
    "L": (4, 11, 26, True),
}


def _paint_shape(
    rgb: NDArray[np.float32], x: int, y: int, shape: NDArray[np.float32], ink: NDArray[np.float32]
) -> None:
    region = rgb[y : y + shape.shape[0], x : x + shape.shape[1]]
    a = shape[: region.shape[0], : region.shape[1], None]
    region[...] = region * (1 - a) + ink * a


@lru_cache(maxsize=512)
def _card_sprite(card: int, size: str) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """RGB and alpha of one face-up card (``card`` = rank * 4 + suit)."""
    w, h = CARD_SIZES[size]
    rank, suit = divmod(int(card), 4)
    inset, small, big, twice = _CARD_LAYOUT[size]
    alpha = _rounded_rect(w, h, max(3.0, w / 9))
    inner = _rounded_rect(w - 2, h - 2, max(2.0, w / 9 - 1))[..., None]
    rgb = np.empty((h, w, 3), np.float32)
    rgb[...] = CARD_EDGE
    rgb[1 : h - 1, 1 : w - 1] = np.asarray(CARD_FACE, np.float32) * inner + rgb[
        1 : h - 1, 1 : w - 1
    ] * (1 - inner)
    # Red hearts and diamonds, black clubs and spades.
    ink = np.asarray(RED_SUIT if suit in (1, 2) else BLACK_SUIT, np.float32)
    # The corner index: the rank, a small pip under it.
    mask = _text_mask(RANK_TEXT[rank], 2)
    mh, mw = mask.shape
    x0 = inset - 1 if mw > FONT_W * 2 else inset  # "10" is wide: one pixel nearer the edge
    rgb[inset : inset + mh, x0 : x0 + mw][mask] = ink
    corner_h = mh
    if small:
        _paint_shape(
            rgb,
            x0 + (mw - small) // 2 if mw <= 2 * FONT_W else x0,
            inset + mh + 2,
            _suit_shape(suit, small),
            ink,
        )
        corner_h = mh + 2 + small
    if size == "S":
        # A small card: the big pip at the lower right, clear of the index.
        _paint_shape(rgb, w - big - 3, h - big - 3, _suit_shape(suit, big), ink)
    else:
        _paint_shape(
            rgb,
            (w - big) // 2 + 1,
            (h - big) // 2 + (1 if twice else 6),
            _suit_shape(suit, big),
            ink,
        )
    if twice:
        # The index again, upside down at the bottom right, as on a real card.
        cw = max(mw, small) + 1
        corner = rgb[inset : inset + corner_h, x0 : x0 + cw].copy()
        rgb[h - inset - corner_h : h - inset, w - x0 - cw : w - x0] = corner[::-1, ::-1]
    return rgb, alpha


@lru_cache(maxsize=8)
def _back_sprite(size: str) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    w, h = CARD_SIZES[size]
    alpha = _rounded_rect(w, h, max(3.0, w / 9))
    rgb = np.empty((h, w, 3), np.float32)
    rgb[...] = CARD_FACE
    b = 3 if size != "S" else 2
    yy, xx = np.mgrid[0 : h - 2 * b, 0 : w - 2 * b]
    # A diagonal lattice, the usual back of a playing card.
    period = 6 if size != "S" else 5
    line = (((xx + yy) % period) == 0) | (((xx - yy) % period) == 0)
    pattern = np.where(line[..., None], BACK_LINE, BACK_BASE).astype(np.float32)
    inner = _rounded_rect(w - 2 * b, h - 2 * b, max(2.0, w / 12))[..., None]
    rgb[b : h - b, b : w - b] = pattern * inner + rgb[b : h - b, b : w - b] * (1 - inner)
    return rgb, alpha


def _with_shadow(rgb: NDArray[np.float32], alpha: NDArray[np.float32]) -> Sprite:
    # The card and, 2 pixels down and right, its soft shadow on the felt, as one sprite.
    h, w = alpha.shape
    d = 2
    sa = np.zeros((h + d, w + d), np.float32)
    sa[d:, d:] = alpha * np.float32(0.45)
    a = np.zeros_like(sa)
    a[:h, :w] = alpha
    c = np.zeros((h + d, w + d, 3), np.float32)
    c[:h, :w] = rgb
    out_a = a + sa * (1 - a)
    shadow = np.asarray(SHADOW, np.float32)
    out_rgb = (c * a[..., None] + shadow * (sa * (1 - a))[..., None]) / np.maximum(out_a, 1e-6)[
        ..., None
    ]
    return make_sprite(out_rgb, out_a)


@lru_cache(maxsize=1024)
def _card_ready(card: int, size: str, dim: bool) -> Sprite:
    rgb, alpha = _card_sprite(card, size)
    if dim:
        rgb = rgb * np.float32(0.55) + np.float32(0.45 * 90)
    return _with_shadow(rgb, alpha)


@lru_cache(maxsize=8)
def _back_ready(size: str) -> Sprite:
    return _with_shadow(*_back_sprite(size))


def draw_card(img: Image, x: int, y: int, card: int, size: str = "M", *, dim: bool = False) -> None:
    """A face-up card with its top-left corner at (x, y); ``dim`` greys it (a folded hand)."""
    draw_sprite(img, x, y, _card_ready(int(card), size, bool(dim)))


def draw_card_back(img: Image, x: int, y: int, size: str = "M") -> None:
    """A face-down card with its top-left corner at (x, y)."""
    draw_sprite(img, x, y, _back_ready(size))


def draw_card_slot(img: Image, x: int, y: int, size: str = "M") -> None:
    """The faint outline of a place where a card will come (an undealt board card)."""
    draw_sprite(img, x, y, _slot_ready(size))


@lru_cache(maxsize=8)
def _slot_ready(size: str) -> Sprite:
    w, h = CARD_SIZES[size]
    ring = _rect_alpha(w, h, max(3, w // 9)).copy()
    ring[2 : h - 2, 2 : w - 2] -= _rect_alpha(w - 4, h - 4, max(2, w // 9 - 2))
    return make_sprite(_solid(h, w, (200, 230, 210)), ring * np.float32(0.35))


def draw_mini_card(img: Image, x: int, y: int, card: int) -> int:
    """A card as a small label for a line of text (rank and suit on white, red or
    black), top-left at (x, y), 20 pixels tall. Returns its width."""
    sprite = _mini_ready(int(card))
    draw_sprite(img, x, y, sprite)
    return sprite.width


@lru_cache(maxsize=64)
def _mini_ready(card: int) -> Sprite:
    rank, suit = divmod(card, 4)
    label = _text_mask(RANK_TEXT[rank], 2)[: 7 * 2]  # capitals: no descender rows
    pip = 12
    w, h = 3 + label.shape[1] + 2 + pip + 3, 20
    alpha = _rounded_rect(w, h, 3.0)
    rgb = np.empty((h, w, 3), np.float32)
    rgb[...] = CARD_FACE
    ink = np.asarray(RED_SUIT if suit in (1, 2) else BLACK_SUIT, np.float32)
    rgb[3 : 3 + label.shape[0], 3 : 3 + label.shape[1]][label] = ink
    _paint_shape(rgb, w - pip - 3, 4, _suit_shape(suit, pip), ink)
    return make_sprite(rgb, alpha)


def mini_cards_width(cards: list[int], gap: int = 3) -> int:
    """Width of a row of :func:`draw_mini_card` labels."""
    return sum(_mini_ready(int(c)).width + gap for c in cards) - gap if cards else 0


# ----------------------------------------------------------------------------- chips
# Casino colours by value: white 1, red 5, green 25, black 100, purple 500, orange 1000+.
_CHIP_VALUES = (1000, 500, 100, 25, 5, 1)
_CHIP_COLORS: dict[int, Color] = {
    1000: (232, 128, 32),
    500: (120, 56, 160),
    100: (34, 34, 40),
    25: (30, 140, 70),
    5: (200, 34, 40),
    1: (232, 232, 226),
}
CHIP_W = 28
CHIP_H = 12  # a chip seen from the side, slightly from above


@lru_cache(maxsize=16)
def _chip_sprite(value: int) -> Sprite:
    w, h = CHIP_W, CHIP_H
    cx, cy = w / 2, h / 2

    def inside(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_]:
        return np.asarray(((x - cx) / (w / 2)) ** 2 + ((y - cy) / (h / 2)) ** 2 <= 1)

    alpha = _coverage(w, h, inside)
    base = np.asarray(_CHIP_COLORS[value], np.float32)
    rgb = np.empty((h, w, 3), np.float32)
    rgb[...] = base
    # The edge stripes of a casino chip, light on dark chips and dark on the white one.
    stripe = np.asarray((250, 250, 250) if value != 1 else (40, 80, 180), np.float32)
    xs = np.arange(w)
    on = ((xs // 3) % 2 == 0) & (np.abs(xs - cx + 0.5) < w / 2 - 2)
    rgb[h // 2 - 1 : h // 2 + 2, on] = stripe
    # Darker lower rim for depth, and a thin dark outline so stacked chips part.
    rgb[h - 3 :] *= 0.7
    ring = alpha - _coverage(
        w,
        h,
        lambda x, y: np.asarray(((x - cx) / (w / 2 - 1)) ** 2 + ((y - cy) / (h / 2 - 1)) ** 2 <= 1),
    )
    rgb *= 1 - 0.6 * np.clip(ring, 0, 1)[..., None]
    return make_sprite(rgb, alpha)


def _chip_breakdown(amount: int, most: int) -> list[int]:
    chips: list[int] = []
    left = int(amount)
    for v in _CHIP_VALUES:
        n = left // v
        left -= n * v
        chips.extend([v] * int(n))
    # Largest at the bottom; at most `most` drawn (a tall stack means a lot).
    return chips[:most]


def draw_chips(
    img: Image, cx: int, bottom: int, amount: int, *, label: bool = True, most: int = 8
) -> None:
    """A stack of chips worth ``amount`` (largest at the bottom) standing on ``bottom``,
    centred at ``cx``, with the amount written beside it."""
    amount = int(amount)
    if amount <= 0:
        return
    chips = _chip_breakdown(amount, most)
    x = cx - CHIP_W // 2
    for i, v in enumerate(chips):
        draw_sprite(img, x, bottom - CHIP_H - 4 * i, _chip_sprite(v))
    if label:
        draw_text(img, x + CHIP_W + 5, bottom - 15, f"{amount}", TEXT, 2, shadow=True)


def draw_button(
    img: Image, cx: int, cy: int, text: str, color: Color = CARD_FACE, ink: Color = BLACK_SUIT
) -> None:
    """A round marker (the dealer button ``D``, blinds ``SB``/``BB``) centred at (cx, cy)."""
    r = 8 if len(text) == 1 else 10
    draw_sprite(img, cx - r, cy - r, _disc_sprite(r, color))
    draw_text(img, cx, cy - 3, text, ink, 1, align="center")


@lru_cache(maxsize=32)
def _disc_sprite(r: int, color: Color) -> Sprite:
    def inside(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_]:
        return np.asarray((x - r) ** 2 + (y - r) ** 2 <= r * r)

    return make_sprite(_solid(2 * r, 2 * r, color), _coverage(2 * r, 2 * r, inside))


# ----------------------------------------------------------------------------- PNG
def png_bytes(img: Image) -> bytes:
    """The picture as a PNG file (8-bit RGB, zlib from the standard library)."""
    arr = np.ascontiguousarray(img, dtype=np.uint8)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"a picture is (H, W, 3) uint8; got shape {arr.shape}")
    h, w = arr.shape[:2]
    raw = np.concatenate([np.zeros((h, 1), np.uint8), arr.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def save_png(path: str | Path, img: Image) -> None:
    """Write the picture to ``path`` as a PNG file."""
    Path(path).write_bytes(png_bytes(img))


# ============================================================================ table pieces
# What every game's table picture shares (poker_env.render.<game>).

#: Size of every table picture: multiples of 16, so video encoders keep it as it is.
HEIGHT = 560
WIDTH = 800

HEADER_Y = 8
PANEL: Color = (10, 16, 14)
PANEL_ALPHA = 0.62
TURN: Color = GOLD
WIN: Color = (120, 230, 140)
LOSS: Color = (250, 120, 110)
TAG_WORN: Color = (226, 226, 216)
TAG_STAKE: Color = GOLD
TAG_LOST: Color = (150, 60, 60)


def panel(img: Image, x: int, y: int, w: int, h: int, *, glow: bool = False) -> None:
    # A translucent box for a seat's name and chips; a gold frame when the seat is to act.
    if glow:
        blend_rect(img, x - 3, y - 3, w + 6, h + 6, TURN, 0.95, 9)
    blend_rect(img, x, y, w, h, PANEL, PANEL_ALPHA if not glow else 0.9, 7)


def banner(
    img: Image, y: int, lines: Sequence[tuple[str, Color]], x0: int = 0, x1: int = WIDTH
) -> None:
    # A dark strip across the table with centred lines (a hand's result).
    h = 10 + 22 * len(lines)
    blend_rect(img, x0 + 20, y, x1 - x0 - 40, h, (0, 0, 0), 0.72, 10)
    for i, (text, color) in enumerate(lines):
        fitted = fit(text, x1 - x0 - 56, 2)
        draw_text(img, (x0 + x1) // 2, y + 7 + 22 * i, fitted, color, 2, align="center")


def fit(text: str, width: int, scale: int) -> str:
    # Cut a line that would run past `width` pixels (with an ellipsis mark).
    most = (width + scale) // (6 * scale)
    return text if len(text) <= most else text[: max(0, most - 2)] + ".."


def hand_row(
    img: Image,
    cx: int,
    y: int,
    cards: Sequence[int] | NDArray[np.int64],
    size: str,
    *,
    face_up: bool = True,
    gap: int = 6,
    dim: bool = False,
) -> None:
    # Cards side by side, centred on cx; backs when not face up.
    w, _ = card_size(size)
    total = len(cards) * w + (len(cards) - 1) * gap
    x = cx - total // 2
    for c in cards:
        if face_up:
            draw_card(img, x, y, int(c), size, dim=dim)
        else:
            draw_card_back(img, x, y, size)
        x += w + gap


def seat_centres(
    n: int, viewer: int, cx: float, cy: float, rx: float, ry: float, gap: float = 40.0
) -> list[tuple[int, int]]:
    """Centre of each seat around an oval: ``viewer`` at the bottom, the others
    spread over the rest of the oval (``gap`` degrees kept clear on each side of the
    viewer for the viewer's own cards), clockwise: the next seat sits to the
    viewer's left, as at a real table."""
    out = [(int(cx), int(cy + ry))] * n
    step = (360.0 - 2 * gap) / max(n - 1, 1)
    for k in range(1, n):
        a = math.radians(90.0 + gap + (k - 0.5) * step)
        out[(viewer + k) % n] = (int(cx + rx * math.cos(a)), int(cy + ry * math.sin(a)))
    return out
