"""The drawing pieces of the table pictures: font, cards, sprites, chips, the PNG writer."""

from __future__ import annotations

import io
import string
import struct
import zlib

import numpy as np
import pytest

from poker_env.render import canvas as P


def test_png_is_read_back_by_pillow_and_by_the_spec() -> None:
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (7, 11, 3), dtype=np.uint8)
    data = P.png_bytes(img)
    # The PNG spec by hand: signature, IHDR (width, height, 8-bit RGB), CRCs, IDAT rows
    # each led by filter byte 0.
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = body
        pos += 12 + length
    assert struct.unpack(">IIBBBBB", chunks[b"IHDR"]) == (11, 7, 8, 2, 0, 0, 0)
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(7, 1 + 11 * 3)
    assert (raw[:, 0] == 0).all()
    assert np.array_equal(raw[:, 1:].reshape(7, 11, 3), img)
    pil = pytest.importorskip("PIL.Image")
    assert np.array_equal(np.asarray(pil.open(io.BytesIO(data)).convert("RGB")), img)
    with pytest.raises(ValueError, match="shape"):
        P.png_bytes(np.zeros((4, 4), np.uint8))


def test_font_covers_printable_ascii_with_distinct_glyphs() -> None:
    chars = string.ascii_letters + string.digits + string.punctuation + "♣♦♥♠"
    masks = {c: P._text_mask(c, 1) for c in chars}
    unknown = P._text_mask("\u0416", 1)  # a character the font lacks draws as "?"
    assert np.array_equal(unknown, masks["?"])
    seen: dict[bytes, str] = {}
    for c, m in masks.items():
        assert m.shape == (P.FONT_H, P.FONT_W)
        assert m.any(), f"glyph {c!r} is blank"
        key = m.tobytes()
        assert key not in seen, f"glyphs {c!r} and {seen[key]!r} are the same"
        seen[key] = c
    # Capitals and digits stand on the baseline (rows 0-6); only descenders go below.
    for c in string.ascii_uppercase + string.digits:
        assert not masks[c][7:].any()
    assert masks["g"][7:].any() and masks["y"][7:].any()


def test_text_width_and_scale() -> None:
    assert P.text_width("", 2) == 0
    assert P.text_width("A", 1) == 5
    assert P.text_width("AB", 1) == 11  # one blank column between glyphs
    assert P.text_width("AB", 3) == 33
    img = P.new_picture(30, 40, (0, 0, 0))
    assert P.draw_text(img, 1, 1, "AB", (255, 255, 255), 2) == 22
    assert P._text_mask("AB", 2).shape == (2 * P.FONT_H, 22)
    # Ink only inside the text's box.
    ys, xs = np.nonzero(img.any(axis=2))
    assert xs.min() >= 1 and xs.max() < 23 and ys.min() >= 1 and ys.max() < 1 + 2 * P.FONT_H


def test_drawing_is_clipped_at_the_edges() -> None:
    img = P.new_picture(100, 100, (0, 0, 0))
    P.draw_text(img, -4, -3, "WWWW", (255, 0, 0), 1)
    P.draw_text(img, 96, 95, "WWWW", (255, 0, 0), 1)
    P.draw_card(img, -50, -70, 51, "L")
    P.draw_card(img, 90, 80, 51, "L")
    P.draw_card(img, 300, 300, 51, "L")  # wholly outside: nothing, no error
    assert img[0:5, 0:5].any() and img[97:, 97:].any()
    # Nothing wrapped around: the rest of the picture is untouched.
    assert not img[20:75, 20:85].any()


def test_sprite_alpha() -> None:
    img = P.new_picture(4, 4, (10, 20, 30))
    opaque = P.make_sprite(np.full((2, 2, 3), 200.0), np.ones((2, 2)))
    clear = P.make_sprite(np.full((2, 2, 3), 200.0), np.zeros((2, 2)))
    half = P.make_sprite(np.full((2, 2, 3), 210.0), np.full((2, 2), 0.5))
    P.draw_sprite(img, 0, 0, opaque)
    P.draw_sprite(img, 2, 0, clear)
    P.draw_sprite(img, 0, 2, half)
    assert (img[0:2, 0:2] == 200).all()
    assert (img[0:2, 2:4] == (10, 20, 30)).all()
    assert (img[2:4, 0:2] == (110, 115, 120)).all()  # half way from (10, 20, 30) to 210


def _has(rgb: np.ndarray, color: tuple[int, int, int]) -> bool:
    return bool((np.abs(rgb - np.asarray(color, np.float32)).sum(axis=-1) < 4).any())


@pytest.mark.parametrize("size", sorted(P.CARD_SIZES))
def test_cards_red_and_black_all_distinct(size: str) -> None:
    faces = set()
    for card in range(52):
        rgb, alpha = P._card_sprite(card, size)
        assert rgb.shape[:2] == alpha.shape == P.CARD_SIZES[size][::-1]
        red = card % 4 in (1, 2)  # diamonds, hearts
        assert _has(rgb, P.RED_SUIT) == red
        assert _has(rgb, P.BLACK_SUIT) != red
        faces.add(rgb.astype(np.uint8).tobytes())
    back = P._back_sprite(size)[0].astype(np.uint8).tobytes()
    assert len(faces) == 52 and back not in faces


def test_chips_add_up() -> None:
    for amount in (1, 4, 5, 7, 30, 125, 630, 1000):
        chips = P._chip_breakdown(amount, 100)
        assert sum(chips) == amount
        assert chips == sorted(chips, reverse=True)
    assert len(P._chip_breakdown(10**6, 8)) == 8
    img = P.table_felt(60, 80)
    before = img.copy()
    P.draw_chips(img, 40, 50, 0)
    assert np.array_equal(img, before)
    P.draw_chips(img, 40, 50, 37)
    assert not np.array_equal(img, before)
