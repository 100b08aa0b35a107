"""Textual's strips make their caches on first use (``tui.patches.strip_caches``): a strip that is never cut,
cropped or styled holds none, and one that is gives the same answers, cached, as before."""

from __future__ import annotations

import gc

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip
from tui_helpers import make_app, wait_warm

from tui.patches.strip_caches import CACHE_SIZES, DeferredCache, defer_strip_caches


def made_caches(strip: Strip) -> list[str]:
    """The names of the caches ``strip`` has made so far (read without making any)."""
    made = []
    for name in CACHE_SIZES:
        slot = Strip.__dict__[name]
        try:
            value = slot.slot.__get__(strip, Strip) if isinstance(slot, DeferredCache) else slot.__get__(strip, Strip)
        except AttributeError:  # not made yet
            continue
        if isinstance(value, FIFOCache):
            made.append(name)
    return made


def test_a_new_strip_has_no_cache_until_it_is_used_and_then_caches_as_before():
    assert defer_strip_caches()
    assert defer_strip_caches()  # twice is harmless
    strip = Strip([Segment("Koma ", Style(bold=True)), Segment("駒", Style(color="red")), Segment(" 15-puzzle")])
    assert made_caches(strip) == []
    cropped = strip.crop(2, 9)
    assert (cropped.text, cropped.cell_length) == ("ma 駒 1", 7)  # 駒 is two cells wide
    assert strip.crop(2, 9) is cropped  # the second crop comes from the cache
    assert made_caches(strip) == ["_crop_cache"]
    cuts = [3, 8, strip.cell_length]
    pieces = strip.divide(cuts)
    assert [piece.text for piece in pieces] == ["Kom", "a 駒 ", "15-puzzle"]
    assert strip.divide(cuts) is pieces
    assert made_caches(cropped) == [] and all(made_caches(piece) == [] for piece in pieces)


async def test_most_strips_of_a_game_in_play_make_no_cache(tmp_path):
    gc.collect()
    earlier_strips = [o for o in gc.get_objects() if type(o) is Strip]  # other tests' strips in this worker
    earlier = {id(strip) for strip in earlier_strips}  # (kept alive, so no new strip takes one of their ids)
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        await pilot.press("right", "left")
        await pilot.pause()
        gc.collect()
        strips = [o for o in gc.get_objects() if type(o) is Strip and id(o) not in earlier]
        with_caches = [strip for strip in strips if made_caches(strip)]
        assert len(strips) > 200  # the screen really rendered
        assert len(with_caches) < len(strips) / 2  # without deferral, every strip holds seven caches
