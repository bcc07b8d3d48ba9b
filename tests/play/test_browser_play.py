"""The game as a person plays it in a real browser (Debian's chromium via Playwright):
every table the start page offers starts, the showdown waits on the table for "Next
hand", a stale tab shows the game as it is now, and a reload or a server restart keeps
the log of what happened. Screenshots go to ``$POKER_ENV_SCREENSHOTS`` when set (the
pictures in docs/img/ are made so)."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.play.test_browser import _as_shown, _open_more, _settle, _shots, browser

__all__ = ["browser"]


def _serve(data: Path) -> tuple[str, Callable[[], None]]:
    import uvicorn

    from poker_env_agents.play.web.app import create_app

    app = create_app(data, creates_per_minute=10_000)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.02)

    def stop() -> None:
        srv.should_exit = True
        thread.join(timeout=10)
        sock.close()

    return f"http://127.0.0.1:{port}", stop


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, stop = _serve(tmp_path_factory.mktemp("games"))
    yield url
    stop()


def _page(browser: Any, width: int = 1280, height: int = 860) -> Any:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(20_000)
    expect.set_options(timeout=20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.errors = errors
    return page


def _start(page: Any, server: str, **fields: str) -> str:
    page.goto(server + "/")
    page.check(f"input[name=game][value={fields.pop('game', 'draw')}]")
    if "opponent" in fields:
        page.select_option("#opponent", fields.pop("opponent"))
    if fields:
        _open_more(page)
    for name, value in fields.items():
        page.fill(f"#{name}", value)
    page.click("#start-button")
    page.wait_for_url("**/game/*")
    page.wait_for_selector("body.ready")
    gid: str = page.url.rsplit("/", 1)[1]
    return gid


def _click(page: Any, selector: str) -> Any:
    """Click a play button and return the server's answer, once the page has drawn it.

    The answer reaches Playwright before the page's script has read it; a test that
    goes on at once (a key press on a card) would act on the page as it was before.
    """
    # The new table's buttons take no press for a moment after each play (aria-busy).
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    with page.expect_response(lambda r: r.url.endswith("/act")) as resp:
        page.click(selector)
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    return resp.value


def test_every_start_page_combination_starts_or_says_why(browser: Any, server: str) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    page.goto(server + "/")
    tables = page.request.get(server + "/api/tables").json()
    expect(page.locator("#trained-note")).to_contain_text("Trained opponents:")
    started = refused = 0
    for game, table in tables["trained"].items():
        for value, why in table.items():
            for level in tables["levels"]:
                page.goto(server + "/")
                page.check(f"input[name=game][value={game}]")
                page.select_option("#opponent", level)
                if game == "draw":
                    page.select_option("#deck", value)
                else:
                    page.fill("#players", value)
                button = page.locator("#start-button")
                if level != "easy" and why is not None:
                    # Not offered: the button is off and the page says why.
                    expect(button).to_be_disabled()
                    expect(page.locator("#trained-note")).to_contain_text(why)
                    refused += 1
                    if (game, value) == ("reddog", "5") and level == "hard":
                        _settle(page)
                        page.screenshot(path=str(_shots(Path("/tmp")) / "play-start.png"))
                    continue
                expect(button).to_be_enabled()
                with page.expect_response(lambda r: r.url.endswith("/api/games")) as resp:
                    button.click()
                assert resp.value.status == 201, (game, value, level, resp.value.text())
                page.wait_for_selector("body.ready")
                started += 1
    assert started >= 24 and refused >= 2
    assert page.errors == []
    page.close()


def test_the_showdown_waits_on_the_table_for_next_hand(browser: Any, server: str) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    # Seed 2: she stays, you go to the draw, both draw, she calls: a showdown in hand 1.
    gid = _start(page, server, seed="2")
    assert _click(page, "#btn-DRAW").ok  # to the draw
    assert _click(page, "#btn-DRAW").ok  # stand pat
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    sd = view["showdown"]
    assert sd is not None and view["hand"] == 2
    bar = page.locator("#showdown")
    expect(bar).to_be_visible()
    # Her cards face up in her place, both hands named, who won; the next deal waits.
    her = [c for c in sd["hands"]["she"].split()]
    expect(page.locator("#seat-1 .cards .card")).to_have_count(5)
    for i, text in enumerate(her):
        expect(page.locator("#seat-1 .cards .card").nth(i)).to_have_attribute("data-card", text)
    expect(page.locator("#seat-1 .hand-name-tag")).to_have_text(sd["names"]["she"])
    expect(page.locator("#hint")).to_have_text(sd["names"]["you"])
    expect(page.locator("#showdown-text")).to_contain_text("wins the pot of")
    expect(page.locator("#title")).to_contain_text("hand 1 · showdown")
    # No money during the pause: hand 2's antes are paid already (the view's money).
    assert view["you"]["money"] + view["her"]["money"] + view["pot"] == 1000
    expect(page.locator("#my-info")).to_have_text("You")
    expect(page.locator("#seat-1 .info")).to_have_text("")
    for name in ("BET", "STAY", "DROP", "DRAW"):
        expect(page.locator(f"#btn-{name}")).to_be_disabled()
        # Plain names: the next hand's labels ("DRAW (call 5)") would tell what she did.
        expect(page.locator(f"#btn-{name}")).to_have_text(name)
    expect(page.locator(".seat.to-act")).to_have_count(0)
    expect(page.locator("#amount-row")).to_be_hidden()
    # "What happened" ends with the paused hand: hand 2's deal and plays are behind it.
    listed = page.locator("#events li").all_inner_texts()
    assert "wins the pot" in listed[-1], listed
    # Her shown cards in the log as on the table (K\u2666, red), the server's name kept.
    shows = page.locator("#events li", has_text="She shows")
    words = shows.locator(".card-word")
    expect(words).to_have_count(5)
    for i, text in enumerate(her):
        expect(words.nth(i)).to_have_attribute("title", text)
        expect(words.nth(i)).to_have_text(_as_shown(f"shows {text}")[len("shows ") :])
        red = "red" in (words.nth(i).get_attribute("class") or "")
        assert red == (text[-1] in "dh"), text
    assert re.search(r"She shows ([2-9AKQJ]|10)[\u2660-\u2666]", shows.inner_text())
    assert not [t for t in listed if t.startswith("Hand 2")], listed
    _settle(page)
    page.screenshot(path=str(_shots(Path("/tmp")) / "play-showdown.png"))
    # A reload keeps the pause until the person goes on.
    page.reload()
    page.wait_for_selector("body.ready")
    expect(bar).to_be_visible()
    page.click("#next-hand")
    expect(bar).to_be_hidden()
    expect(page.locator("#title")).to_have_text("Five-card draw · hand 2")
    expect(page.locator("#my-info")).to_contain_text(f"money {view['you']['money']}")
    expect(page.locator("#seat-1 .info")).to_contain_text(f"money {view['her']['money']}")
    expect(page.locator("#seat-1 .cards .card.back")).to_have_count(5)
    legal = [b["name"] for b in view["buttons"]]
    expect(page.locator(f"#btn-{legal[0]}")).to_be_enabled()
    # The key goes on as well: the next showdown is dismissed with n.
    assert page.errors == []
    page.close()


def test_a_stale_tab_shows_the_game_as_it_is_now(browser: Any, server: str) -> None:
    from playwright.sync_api import expect

    a = _page(browser)
    gid = _start(a, server, seed="1")
    b = _page(browser)
    b.goto(f"{server}/game/{gid}")
    b.wait_for_selector("body.ready")
    expect(b.locator("#btn-STAY")).to_be_enabled()
    assert _click(a, "#btn-STAY").ok  # tab a plays; tab b still shows STAY
    now = a.request.get(f"{server}/api/games/{gid}").json()["view"]
    assert "STAY" not in [x["name"] for x in now["buttons"]]
    resp = _click(b, "#btn-STAY")
    assert resp.status == 409
    expect(b.locator("#message")).to_contain_text("another tab")
    expect(b.locator("#btn-STAY")).to_be_disabled()
    for x in now["buttons"]:
        expect(b.locator(f"#btn-{x['name']}")).to_be_enabled()
    texts = [_as_shown(e["text"]) for e in now["events"]]
    expect(b.locator("#events li")).to_have_text(texts)
    a.close()
    b.close()


def test_a_reload_and_a_server_restart_keep_the_log(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    data = tmp_path / "games"
    url, stop = _serve(data)
    page = _page(browser)
    gid = _start(page, url, game="holdem", seed="5")
    for _ in range(2):
        # Wait for the page to draw the answer (the buttons are off while a play is sent).
        # A locator, not wait_for_function: the page's CSP forbids the eval that a
        # polled string predicate needs, so that form fails whenever it has to poll.
        page.locator("body[aria-busy=false]").wait_for(state="attached")  # (settled)
        page.locator("#btn-CALL:enabled, #btn-CHECK:enabled").first.wait_for(state="attached")
        name = "CALL" if page.locator("#btn-CALL").is_enabled() else "CHECK"
        assert _click(page, f"#btn-{name}").ok
    view = page.request.get(f"{url}/api/games/{gid}").json()["view"]
    texts = [_as_shown(e["text"]) for e in view["events"]]
    assert len(texts) >= 3
    expect(page.locator("#events li")).to_have_text(texts)  # (the page has drawn it)
    page.reload()
    page.wait_for_selector("body.ready")
    expect(page.locator("#events li")).to_have_text(texts)
    stop()
    url2, stop2 = _serve(data)  # a restart: a new server over the same folder
    page.goto(f"{url2}/game/{gid}")
    page.wait_for_selector("body.ready")
    expect(page.locator("#events li")).to_have_text(texts)
    # An expired address: a readable page with a way back.
    page.goto(f"{url2}/game/" + "Z" * 22)
    expect(page.locator("h1")).to_have_text("This game is not here")
    assert page.errors == []
    page.close()
    stop2()


def test_cards_marked_by_keyboard_stay_raised_and_the_slider_follows_the_box(
    browser: Any, server: str
) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    _start(page, server, seed="2")
    # Before the draw: the amount box drives the slider.
    page.fill("#amount", "37")
    assert page.eval_on_selector("#amount-range", "e => e.value") == "37"
    # A refused amount is refused with the reason, and does not linger after a play.
    page.fill("#amount", "9999")
    assert _click(page, "#btn-BET").status == 409
    expect(page.locator("#message")).to_contain_text("BET 9999 is out of bounds")
    # A number past 2^53 is said as typed, not rounded (it read 100000000000000000000).
    page.fill("#amount", "99999999999999999999")
    page.click("#btn-BET")
    expect(page.locator("#message")).to_contain_text(
        "BET 99999999999999999999 is out of bounds: from 5 to"
    )
    assert _click(page, "#btn-DRAW").ok  # to the draw
    expect(page.locator("#message")).to_have_text("")
    card1 = page.locator("#my-cards .card[data-n='1']")
    card2 = page.locator("#my-cards .card[data-n='2']")
    card1.focus()
    page.keyboard.press("Space")  # role=button: Space and Enter press it
    card2.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#my-cards .card.marked")).to_have_count(2)
    expect(page.locator("#my-cards .card[data-n='1']")).to_have_attribute("aria-pressed", "true")
    # A marked card stays raised under the pointer (not lowered to the hover lift).
    page.locator("#my-cards .card[data-n='1']").hover()
    _settle(page)
    transform = page.eval_on_selector(
        "#my-cards .card[data-n='1']", "e => getComputedStyle(e).transform"
    )
    assert transform.replace(" ", "").endswith(",-16)"), transform
    assert _click(page, "#btn-DRAW").ok  # change cards 1 and 2
    expect(page.locator("#amount")).not_to_have_value("9999")
    # The favicon is served (no 404 on every page).
    assert page.request.get(server + "/favicon.ico").status == 200
    assert page.errors == []
    page.close()


def test_a_play_the_server_never_answers_says_so_and_can_be_sent_again(
    browser: Any, server: str
) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    _start(page, server, seed="3")
    page.route("**/act", lambda route: route.abort())
    page.click("#btn-DRAW")
    expect(page.locator("#message")).to_contain_text("The server does not answer")
    expect(page.locator("body")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#btn-DRAW")).to_be_enabled()  # not left disabled for good
    page.unroute("**/act")
    assert _click(page, "#btn-DRAW").ok  # the same play goes through now
    expect(page.locator("#message")).to_have_text("")
    page.close()


def test_a_holdem_showdown_shows_the_chips_after_its_pot_not_the_next_hands_blinds(
    browser: Any, server: str
) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, game="holdem", seed="4", players="6")
    view: dict[str, Any] = {}
    for _ in range(40):  # check or call down to a showdown
        page.locator("body[aria-busy=false]").wait_for(state="attached")  # (settled)
        page.locator("#btn-CALL:enabled, #btn-CHECK:enabled").first.wait_for(state="attached")
        name = "CALL" if page.locator("#btn-CALL").is_enabled() else "CHECK"
        assert _click(page, f"#btn-{name}").ok
        view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
        if view["showdown"] is not None:
            break
    sd = view["showdown"]
    assert sd is not None and not view["over"]
    assert sum(sd["chips"]) == sum(p["chips"] + p["bet"] for p in view["players"])
    me = view["players"][0]
    assert me["chips"] + me["bet"] == sd["chips"][0]  # the next hand's blind is not in sd
    expect(page.locator("#showdown")).to_be_visible()
    expect(page.locator("#my-info")).to_have_text(f"You · chips {sd['chips'][0]}")
    expect(page.locator("#seat-1 .info")).to_have_text(f"chips {sd['chips'][1]}")
    expect(page.locator("#status")).to_have_text("showdown")
    # The seats not in the showdown hold no cards of the next hand (no backs, no tags).
    shown = {r["seat"] for r in sd["shown"]}
    for p in view["players"][1:]:
        if p["seat"] not in shown:
            expect(page.locator(f"#seat-{p['seat']} .card")).to_have_count(0)
            expect(page.locator(f"#seat-{p['seat']} .tag")).to_have_count(0)
    # The verdict names the shown cards as the table does, inside its lines (one bug
    # made each a line of its own).
    words = page.locator("#showdown-text .card-word")
    assert words.count() >= 2
    assert {w.evaluate("e => getComputedStyle(e).display") for w in words.all()} == {"inline"}
    page.click("#next-hand")
    expect(page.locator("#showdown")).to_be_hidden()
    expect(page.locator("#my-info")).to_contain_text(f"You · chips {me['chips']}")
    expect(page.locator("#status")).not_to_have_text("showdown")
    assert page.errors == []
    page.close()


def test_red_dog_turned_and_shown_cards_are_two_labelled_rows(browser: Any, server: str) -> None:
    """At ten players (seed 1: nine seats bet before you) the cards shown run to dozens:
    the turned cards and the shown ones each get their own row with its label, every
    card of the view in it, instead of one row where the two lists ran together."""
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, game="reddog", players="10", seed="1")
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    assert len(view["turned"]) >= 5 and len(view["shown"]) > 20
    turned = page.locator("#board .group[data-group=turned]")
    shown = page.locator("#board .group[data-group=shown]")
    expect(turned.locator(".label")).to_have_text("turned")
    expect(shown.locator(".label")).to_have_text("shown")
    expect(turned.locator(".card")).to_have_count(len(view["turned"]))
    expect(shown.locator(".card")).to_have_count(len(view["shown"]))
    for i, c in enumerate(view["shown"]):
        expect(shown.locator(".card").nth(i)).to_have_attribute("data-card", c["text"])
    # Every shown card lies below the last turned one, right of the shown label.
    t_box, label_box = turned.bounding_box(), shown.locator(".label").bounding_box()
    assert t_box is not None and label_box is not None
    for box in (shown.locator(".card").nth(i).bounding_box() for i in range(len(view["shown"]))):
        assert box is not None
        assert box["y"] >= t_box["y"] + t_box["height"] - 1
        assert box["x"] >= label_box["x"] + label_box["width"]
    assert page.errors == []
    page.close()


def test_on_a_phone_the_table_fits_its_width_and_the_buttons_the_first_screen(
    browser: Any, server: str
) -> None:
    """375 x 667 CSS pixels (a small phone held upright): nothing wider than the screen,
    and every button of the first decision on the first screen, without scrolling, at a
    six- and a ten-seat Hold'em table (the board in one row of five), five-card draw
    and ten-seat Red Dog; buttons at least 44 px tall (a finger's press). A ten-seat Red
    Dog table's cards all inside the felt."""
    from playwright.sync_api import expect

    narrow = _page(browser, 320, 640)  # the start page, its options open, at 320
    narrow.goto(server + "/")
    _open_more(narrow)
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 320
    narrow.close()
    page = _page(browser, 375, 667)
    for game, players in (("holdem", "6"), ("holdem", "10"), ("draw", ""), ("reddog", "10")):
        fields = {"game": game, "seed": "11"} | ({"players": players} if players else {})
        _start(page, server, **fields)
        expect(page.locator("#buttons button.action").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, game
        assert page.evaluate("window.scrollY") == 0
        buttons = page.locator("#buttons button.action").all()
        assert len(buttons) >= 2
        for button in buttons:
            box = button.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 667, (game, players, box)
            assert box["height"] >= 44, (game, box)
        if game == "holdem":
            expect(page.locator("#board .card")).to_have_count(5)  # the five places, empty
            tops = {
                round(b["y"])
                for b in (c.bounding_box() for c in page.locator("#board .card").all())
                if b
            }
            assert len(tops) == 1
            if players == "6":
                page.locator("body[aria-busy=false]").wait_for(state="attached")
                _settle(page)
                page.screenshot(path=str(_shots(Path("/tmp")) / "play-phone.png"))
    _start(page, server, game="reddog", players="10", seed="1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    felt = page.locator(".felt").bounding_box()
    assert felt is not None
    cards = page.locator("#board .card").all()
    assert len(cards) > 25
    for card in cards:
        box = card.bounding_box()
        assert box is not None
        assert (
            felt["x"] + 10 <= box["x"] and box["x"] + box["width"] <= felt["x"] + felt["width"] - 10
        )
    assert page.errors == []
    page.close()


def _in_view_and_clear(page: Any, height: int) -> None:
    """Every button inside the screen, and your cards not under the buttons' box."""
    controls = page.locator("#controls").bounding_box()
    assert controls is not None and controls["y"] + controls["height"] <= height + 1
    for button in page.locator("#buttons button.action").all():
        box = button.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height
    for card in page.locator("#my-cards .card").all():
        box = card.bounding_box()
        assert box is not None and 0 <= box["y"]
        assert box["y"] + box["height"] <= controls["y"] + 1, (box, controls)


def test_a_table_longer_than_the_phone_keeps_its_buttons_and_your_cards_in_view(
    browser: Any, server: str
) -> None:
    """Where the felt runs past a phone's screen (Red Dog at ten, deal 3 of seed 8 with
    money 300: 9 turned cards and 21 shown; a phone on its side, 667 x 375), a new
    table is scrolled so that your cards and the buttons are both in view, the buttons
    not over the cards."""
    page = _page(browser, 375, 667)
    _start(page, server, game="reddog", players="10", seed="8", money="300")
    for _ in range(2):
        page.fill("#amount", "1")
        assert _click(page, "#btn-BET").ok
    assert len(page.locator("#board .card").all()) >= 25
    assert page.evaluate("document.documentElement.scrollHeight") > 667  # it runs past
    _in_view_and_clear(page, 667)
    page.close()
    # A wide phone on its side (932 x 430: the two columns of a desktop): the felt is
    # not stretched to the side column's height, so its foot is not empty felt with
    # the cards above the screen.
    page = _page(browser, 932, 430)
    _start(page, server, game="reddog", players="10", seed="8", money="300")
    for _ in range(2):
        page.fill("#amount", "1")
        assert _click(page, "#btn-BET").ok
    _in_view_and_clear(page, 430)
    middle = page.locator(".middle").bounding_box()
    assert middle is not None and middle["y"] + middle["height"] > 0  # the board shows
    page.close()
    page = _page(browser, 667, 375)
    for game in ("holdem", "draw"):
        _start(page, server, game=game, seed="5")
        _in_view_and_clear(page, 375)
        name = "CALL" if game == "holdem" else "STAY"
        assert _click(page, f"#btn-{name}").ok
        _in_view_and_clear(page, 375)
    assert page.errors == []
    page.close()


def test_on_a_phone_the_showdown_pause_keeps_the_focus_on_next_hand(
    browser: Any, server: str
) -> None:
    """A phone hides the next hand's buttons (all off) during the showdown pause: the
    focus goes to "Next hand" (not lost to the page), and after it to the buttons' row,
    as on a desktop. A refusal's reason stays shown during the pause."""
    from playwright.sync_api import expect

    page = _page(browser, 375, 667)
    _start(page, server, seed="2")  # (as the desktop test: a showdown in hand 1)
    assert _click(page, "#btn-DRAW").ok
    assert _click(page, "#btn-DRAW").ok
    expect(page.locator("#showdown")).to_be_visible()
    expect(page.locator("#buttons")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "next-hand"
    page.evaluate("document.getElementById('message').textContent = 'Not accepted'")
    expect(page.locator("#message")).to_be_visible()
    page.evaluate("document.getElementById('message').textContent = ''")
    page.keyboard.press("Enter")
    expect(page.locator("#showdown")).to_be_hidden()
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    assert page.evaluate("document.activeElement.id") == "buttons"
    expect(page.locator("#buttons")).to_be_visible()
    assert page.errors == []
    page.close()


def test_the_draw_pause_shows_her_wardrobe_as_the_hand_left_it(browser: Any, server: str) -> None:
    """Seed 7 (money 50, two items): you win hand 1's pot; hand 2's ante stakes her hat.
    During the pause the hat is worn; after Next hand it is at stake."""
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, seed="7", money="50", items="2")
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    bet = next(b for b in view["buttons"] if b["name"] == "BET")
    page.fill("#amount", str(bet["max"]))  # the most allowed (what 'b max' types)
    assert _click(page, "#btn-BET").ok
    assert _click(page, "#btn-DRAW").ok  # stand pat
    assert _click(page, "#btn-CALL").ok  # the showdown
    expect(page.locator("#showdown")).to_be_visible()
    hat = page.locator("#wardrobe .item[data-item=hat]")
    expect(hat).to_have_attribute("data-state", "worn")
    page.click("#next-hand")
    expect(hat).to_have_attribute("data-state", "at_stake")
    assert page.errors == []
    page.close()


def test_the_hand_history_numbers_its_entries_as_they_happened(browser: Any, server: str) -> None:
    """The history keeps the newest 60 entries; it once numbered them 60 down to 1
    whatever came before (at Red Dog the 79th result read "60."; found by playing).
    The list now counts down from the number of results."""
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, game="reddog", players="10", seed="305")
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    while len(view["results"]) <= 61:
        r = page.request.post(f"{server}/api/games/{gid}/act", data={"button": "BET", "amount": 1})
        assert r.ok, r.text()
        view = r.json()["view"]
    page.reload()
    page.wait_for_selector("body.ready")
    _settle(page)
    history = page.locator("#history")
    expect(history.locator("li")).to_have_count(60)
    assert history.evaluate("ol => ol.start") == len(view["results"])
    newest = view["results"][-1]
    expect(history.locator("li").first).to_contain_text(
        _as_shown((newest.get("lines") or [newest["text"]])[0])
    )
    assert page.errors == []
    page.close()


def _play_to_the_end(page: Any, server: str, gid: str) -> dict[str, Any]:
    """Play on through the API (all in, call, stand pat, check) until the game is over."""
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    while not view["over"]:
        names = [b["name"] for b in view["buttons"]]
        name = next(n for n in ("ALL_IN", "CALL", "DRAW", "CHECK", "STAY") if n in names)
        body: dict[str, Any] = {"button": name}
        if name == "DRAW":
            body["cards"] = []
        r = page.request.post(f"{server}/api/games/{gid}/act", data=body)
        assert r.ok, r.text()
        view = r.json()["view"]
    return view


@pytest.mark.parametrize(
    ("game", "fields"),
    [
        ("draw", {"money": "20", "items": "1", "seed": "1"}),
        ("holdem", {"players": "2", "money": "20", "seed": "1"}),
    ],
)
def test_the_final_screen_keeps_the_last_showdown_on_the_table(
    browser: Any, server: str, game: str, fields: dict[str, str]
) -> None:
    """A game that ends at a showdown once showed, behind its final box, her cards
    face down again (the draw) or an empty table (Hold'em; found by playing). After
    "See the result" the table keeps that hand: the cards shown, their names, the
    board, the chips it left."""
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, game=game, **fields)
    view = _play_to_the_end(page, server, gid)
    sd = view["showdown"]
    assert sd is not None
    page.reload()
    page.wait_for_selector("body.ready")
    expect(page.locator("#showdown")).to_be_visible()
    page.click("#next-hand")  # "See the result"
    expect(page.locator("#final")).to_be_visible()
    if game == "draw":
        her = page.locator("#seat-1 .cards .card")
        expect(her).to_have_count(5)
        expect(page.locator("#seat-1 .cards .card.back")).to_have_count(0)
        for i, text in enumerate(sd["hands"]["she"].split()):
            expect(her.nth(i)).to_have_attribute("data-card", text)
        expect(page.locator("#seat-1 .hand-name-tag")).to_have_text(sd["names"]["she"])
        expect(page.locator("#hint")).to_have_text(sd["names"]["you"])
        expect(page.locator("#seat-1 .info")).to_contain_text(f"money {view['her']['money']}")
    else:
        expect(page.locator("#board .card")).to_have_count(5)
        for i, text in enumerate(sd["board"].split()):
            expect(page.locator("#board .card").nth(i)).to_have_attribute("data-card", text)
        shown = {r["seat"]: r for r in sd["shown"]}
        assert 1 in shown
        expect(page.locator("#seat-1 .cards .card")).to_have_count(2)
        expect(page.locator("#seat-1 .hand-name-tag")).to_have_text(shown[1]["hand"])
        expect(page.locator("#status")).to_have_text("game over")
    # The box can be put aside to look at the table, and brought back.
    page.click("#final-close")
    expect(page.locator("#final")).to_be_hidden()
    expect(page.locator("#final-reopen")).to_be_visible()
    page.click("#final-reopen")
    expect(page.locator("#final")).to_be_visible()
    expect(page.locator("#final-reopen")).to_be_hidden()
    assert page.errors == []
    page.close()


def _acts(page: Any) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/act") else None)
    return sent


def test_a_second_press_on_the_table_a_play_brought_is_not_a_play(
    browser: Any, server: str
) -> None:
    """A double click on CALL, or c pressed twice, called twice: the second press landed
    on the new table's CALL (against her raise, found by playing). The new table's
    buttons now wait a moment before they take a press."""
    from playwright.sync_api import expect

    for second in ("click", "key"):
        page = _page(browser)
        gid = _start(page, server, game="holdem", players="2", seed="22")
        sent = _acts(page)
        page.locator("#btn-CALL:enabled").wait_for()
        with page.expect_response(lambda r: r.url.endswith("/act")):
            page.click("#btn-CALL")
        # The page has drawn the answer: the second press comes right after it.
        expect(page.locator("#events li.mine")).not_to_have_count(0)
        if second == "click":
            page.evaluate("() => document.getElementById('btn-CALL').click()")
        else:
            page.keyboard.press("c")
        page.wait_for_timeout(700)
        assert len(sent) == 1, (second, sent)
        view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
        mine = [e["text"] for e in view["events"] if e["seat"] == 0]
        assert len(mine) == 1 and mine[0].startswith("You call"), mine
        # After the moment the buttons take presses again.
        expect(page.locator("body")).to_have_attribute("aria-busy", "false")
        expect(page.locator("#btn-FOLD")).to_be_enabled()
        assert page.errors == []
        page.close()


def test_a_press_in_a_tab_left_behind_is_refused_even_when_legal_now(
    browser: Any, server: str
) -> None:
    # Tab b still shows CALL; tab a calls; CALL is legal again on the new table (her
    # raise), but b's press was made on the old one: refused, b shows the table now.
    from playwright.sync_api import expect

    a = _page(browser)
    gid = _start(a, server, game="holdem", players="2", seed="22")
    b = _page(browser)
    b.goto(f"{server}/game/{gid}")
    b.wait_for_selector("body.ready")
    expect(b.locator("#btn-CALL")).to_be_enabled()
    assert _click(a, "#btn-CALL").ok
    after = a.request.get(f"{server}/api/games/{gid}").json()["view"]
    assert "CALL" in [x["name"] for x in after["buttons"]]
    assert _click(b, "#btn-CALL").status == 409
    expect(b.locator("#message")).to_contain_text("a screen the game had already left")
    expect(b.locator("#events li")).to_have_text([_as_shown(e["text"]) for e in after["events"]])
    assert a.request.get(f"{server}/api/games/{gid}").json()["view"] == after
    a.close()
    b.close()


def test_the_keyboard_focus_stays_where_the_person_left_it(browser: Any, server: str) -> None:
    """After a play by Enter the focus was lost (the buttons are drawn anew), and after
    marking a card by Space the next Tab went back to card 1 (found by playing)."""
    from playwright.sync_api import expect

    page = _page(browser)
    _start(page, server, seed="2")
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    page.locator("#btn-DRAW:enabled").wait_for()
    page.focus("#btn-DRAW")
    with page.expect_response(lambda r: r.url.endswith("/act")):
        page.keyboard.press("Enter")  # to the draw
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    focused = "() => document.activeElement && document.activeElement.id"
    expect(page.locator("#buttons button:focus")).to_have_count(1)
    page.focus("#card-3")
    page.keyboard.press("Space")
    expect(page.locator("#card-3")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(focused) == "card-3"
    page.keyboard.press("Tab")
    assert page.evaluate(focused) == "card-4"
    # A reload keeps the cards marked on this table.
    page.reload()
    page.wait_for_selector("body.ready")
    expect(page.locator("#my-cards .card.marked")).to_have_count(1)
    expect(page.locator("#card-3")).to_have_attribute("aria-pressed", "true")
    assert page.errors == []
    page.close()


def test_the_start_page_asks_each_games_least_money_and_says_the_seed_as_typed(
    browser: Any, server: str
) -> None:
    from playwright.sync_api import expect

    page = _page(browser)
    page.goto(server + "/")
    _open_more(page)
    least = {"draw": "5", "holdem": "3", "reddog": "2"}
    for game, low in least.items():
        page.check(f"input[name=game][value={game}]")
        expect(page.locator("#money")).to_have_attribute("min", low)
    # A seed past 2**53 is refused as typed (it read 100000000000000000000).
    page.fill("#seed", "99999999999999999999")
    page.click("#start-button")
    expect(page.locator("#start-error")).to_contain_text("not 99999999999999999999")
    # The browser's own check refuses money below the least: the old error goes.
    page.fill("#seed", "")
    page.fill("#money", "1")
    page.click("#start-button")
    expect(page.locator("#start-error")).to_have_text("")
    assert page.url.rstrip("/") == server
    assert page.errors == []
    page.close()


def test_red_dog_keeps_your_own_last_bet_in_view(browser: Any, server: str) -> None:
    # Your bet's result left the table at once (the other seats' deals follow it) and
    # "Last hand" showed whoever bet last (a play-test): it shows your latest bet.
    from playwright.sync_api import expect

    page = _page(browser)
    gid = _start(page, server, game="reddog", players="4", seed="3")
    expect(page.locator("#last-hand-title")).to_have_text("Your last bet")
    page.fill("#amount", "1")
    assert _click(page, "#btn-BET").ok
    view = page.request.get(f"{server}/api/games/{gid}").json()["view"]
    mine = [r for r in view["results"] if r["seat"] == 0]
    assert mine and view["results"][-1]["seat"] != 0  # others bet after you
    expect(page.locator("#last-hand .result-text")).to_have_text(_as_shown(mine[-1]["text"]))
    assert page.errors == []
    page.close()


def test_a_second_enter_on_the_showdown_pause_plays_nothing(browser: Any, server: str) -> None:
    """The focus comes back to a button after the pause: a second Enter (a double tap,
    a key held) played the next hand's first button blind (a review). The next hand's
    buttons wait as after a play; a focused link does not turn the game's keys off."""
    from playwright.sync_api import expect

    page = _page(browser)
    _start(page, server, seed="2")
    for _ in range(2):  # to the draw, then stand pat: the showdown of hand 1
        page.locator("body[aria-busy=false]").wait_for(state="attached")
        page.locator("#btn-DRAW:enabled").wait_for()
        page.focus("#btn-DRAW")
        with page.expect_response(lambda r: r.url.endswith("/act")):
            page.keyboard.press("Enter")
        page.locator("body[aria-busy=false]").wait_for(state="attached")
    expect(page.locator("#showdown")).to_be_visible()
    sent = _acts(page)
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.wait_for_timeout(700)
    expect(page.locator("#showdown")).to_be_hidden()
    assert sent == []
    # Nor later: the focus is on the buttons' row, not on a button (it fell to the
    # first one, FOLD in Hold'em, and an Enter 0.4 s on folded the hand: a play-test).
    assert page.evaluate("() => document.activeElement.id") == "buttons"
    page.keyboard.press("Enter")
    page.wait_for_timeout(400)
    assert sent == []
    page.keyboard.press("Tab")  # the next Tab reaches a button
    assert page.evaluate("() => document.activeElement.id").startswith("btn-")
    # A link with the focus: its Enter is its own, the game's letters still play.
    view = page.request.get(page.url.replace("/game/", "/api/games/")).json()["view"]
    key = next(b["key"] for b in view["buttons"] if b["min"] is None)  # no amount asked
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    page.focus("a.new-game")
    with page.expect_response(lambda r: r.url.endswith("/act")):
        page.keyboard.press(key)
    assert len(sent) == 1
    assert page.errors == []
    page.close()


def test_the_amount_box_is_not_refilled_while_the_person_types(browser: Any, server: str) -> None:
    # Emptied in the moment after a play, the box was refilled with the minimum when the
    # buttons came back, so typing 50 gave 650 (a play-test).
    page = _page(browser)
    _start(page, server, game="holdem", players="2", seed="22")
    page.locator("body[aria-busy=false]").wait_for(state="attached")
    with page.expect_response(lambda r: r.url.endswith("/act")):
        page.click("#btn-CALL")
    page.locator("#events li.mine").first.wait_for()  # the new table is drawn
    page.fill("#amount", "")  # at once: the buttons still wait
    page.wait_for_timeout(500)
    assert page.eval_on_selector("#amount", "e => e.value") == ""
    page.type("#amount", "50")
    assert page.eval_on_selector("#amount", "e => e.value") == "50"
    assert page.errors == []
    page.close()


def test_an_empty_players_box_starts_the_games_default_table(browser: Any, server: str) -> None:
    # It sent 0 ("players must be ... not 0": a play-test).
    from playwright.sync_api import expect

    page = _page(browser)
    page.goto(server + "/")
    page.check("input[name=game][value=reddog]")
    page.fill("#players", "")
    page.click("#start-button")
    page.wait_for_url("**/game/*")
    page.wait_for_selector("body.ready")
    expect(page.locator("#opponents .seat")).to_have_count(3)  # 4 players, you included
    assert page.errors == []
    page.close()
