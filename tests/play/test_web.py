"""The browser app's API through Starlette's TestClient: validation and refusals,
separate games, persistence across a restart, and no way from a request to a file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from poker_env_agents.play import load_session
from poker_env_agents.play.web.app import ID_PATTERN, create_app


def _client(data: Path) -> TestClient:
    return TestClient(create_app(data, allowed_hosts=["testserver"]))


def _new(c: TestClient, **body: Any) -> tuple[str, dict[str, Any]]:
    r = c.post("/api/games", json={"game": "draw", "seed": 1, **body})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def _act(c: TestClient, gid: str, **body: Any) -> Any:
    return c.post(f"/api/games/{gid}/act", json=body)


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return _client(tmp_path / "games")


def test_a_game_is_created_shown_and_played(client: TestClient, tmp_path: Path) -> None:
    gid, view = _new(client)
    assert ID_PATTERN.fullmatch(gid)
    assert view["game"] == "draw" and view["to_act"] == "you"
    assert [b["name"] for b in view["buttons"]] == ["BET", "STAY", "DROP"]
    bet = view["buttons"][0]
    assert (bet["min"], bet["max"], bet["key"]) == (5, 495, "b")
    r = _act(client, gid, button="BET", amount=7)
    assert r.status_code == 200
    texts = [e["text"] for e in r.json()["view"]["events"]]
    assert texts[:2] == ["Hand 1: you act first.", "You bet 7 (BET)."]
    assert client.get(f"/api/games/{gid}").json()["view"] == r.json()["view"]
    # Saved on disk after every change, as JSON named by the server.
    files = os.listdir(tmp_path / "games")
    assert files == [f"{gid}.json"]
    saved = (tmp_path / "games" / files[0]).read_text()
    assert load_session(saved).view()["you"] == r.json()["view"]["you"]


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        (
            {"button": "CALL"},
            409,
            "'CALL' is not a legal button now; legal: BET 5..495, STAY, DROP",
        ),
        ({"button": "BET", "amount": 496}, 409, "BET 496 is out of bounds: from 5 to 495"),
        ({"button": "BET"}, 409, "BET needs an amount from 5 to 495"),
        ({"button": "BET", "amount": 7.5}, 400, "amount must be a whole number of chips"),
        ({"button": "BET", "amount": "7"}, 400, "amount must be a whole number of chips"),
        ({"button": "BET", "amount": True}, 400, "amount must be a whole number of chips"),
        ({"button": "STAY", "cards": [1]}, 409, "STAY takes no cards"),
        ({"button": "STAY", "cards": "1"}, 400, "cards must be a list of card numbers"),
        ({"button": 3}, 400, "button must be a button's name"),
        ({"button": "x" * 21}, 400, "button must be a button's name"),
        ({"button": "STAY", "path": "/etc/passwd"}, 400, "unknown field 'path'"),
        ({}, 400, "button must be a button's name"),
    ],
)
def test_bad_actions_answer_4xx_with_the_reason_and_change_nothing(
    client: TestClient, body: dict[str, Any], status: int, reason: str
) -> None:
    gid, view = _new(client)
    r = _act(client, gid, **body)
    assert r.status_code == status
    assert r.json()["error"].startswith(reason)
    assert client.get(f"/api/games/{gid}").json()["view"] == view


def test_bodies_that_are_not_json_objects_are_refused(client: TestClient) -> None:
    gid, view = _new(client)
    url = f"/api/games/{gid}/act"
    r = client.post(url, content=b"button=STAY", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415  # a plain form from another site's page cannot act
    r = client.post(url, content=b"[1, 2]", headers={"Content-Type": "application/json"})
    assert (r.status_code, r.json()["error"]) == (400, "the body must be a JSON object")
    r = client.post(url, content=b"{oops", headers={"Content-Type": "application/json"})
    assert (r.status_code, r.json()["error"]) == (400, "the body is not JSON")
    big = json.dumps({"button": "STAY", "cards": [1] * 3000}).encode()
    r = client.post(url, content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert client.get(f"/api/games/{gid}").json()["view"] == view


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "chess"}, "game must be one of"),
        ({"game": "draw", "opponent": "/etc/passwd"}, "opponent must be one of"),
        ({"game": "draw", "opponent": "../agents/models/x.npz"}, "opponent must be one of"),
        ({"game": "draw", "deck": 40}, "deck must be 32 or 52"),
        ({"game": "draw", "deck": True}, "deck must be 32 or 52"),
        ({"game": "holdem", "players": 11}, "players must be a whole number from 2 to 10"),
        ({"game": "holdem", "deck": 32}, "deck is an option of the draw only"),
        ({"game": "draw", "players": 3}, "players is not an option of the draw"),
        ({"game": "draw", "seed": -1}, "seed must be a whole number"),
        ({"game": "draw", "seed": "1e3"}, "seed must be a whole number"),
        ({"game": "draw", "seed": "99999999999999999999"}, "seed must be a whole number"),
        ({"game": "draw", "deck": 52.0}, "deck must be 32 or 52, not 52.0"),
        ({"game": "draw", "money": 4}, "starting money must be a whole number from 5 to"),
        ({"game": "holdem", "money": 2}, "starting money must be a whole number from 3 to"),
        ({"game": "reddog", "money": 1}, "starting money must be a whole number from 2 to"),
        ({"game": "reddog", "money": 10**9 + 1}, "starting money must be a whole number from 2"),
        ({"game": "draw", "file": "x"}, "unknown field 'file'"),
    ],
)
def test_bad_new_games_are_refused(client: TestClient, body: dict[str, Any], reason: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.json()["error"].startswith(reason)


def test_a_missing_shipped_model_is_a_clear_400(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # With the shipped models: the game starts against her policy.
    r = client.post("/api/games", json={"game": "draw", "opponent": "hard"})
    assert r.status_code == 201, r.json()
    # Without them (an empty models folder): a clear 400 naming the missing file.
    monkeypatch.setattr("poker_env_agents.opponent.MODELS_DIR", tmp_path)
    r = client.post("/api/games", json={"game": "draw", "opponent": "hard"})
    assert r.status_code == 400
    assert "no shipped model draw_match52.npz" in r.json()["error"]


def test_games_are_separate(client: TestClient) -> None:
    a, view_a = _new(client, seed=1)
    b, view_b = _new(client, seed=1)
    assert a != b
    assert _act(client, a, button="BET", amount=9).status_code == 200
    # The same seed, the same deal, but b is untouched by a's action.
    assert client.get(f"/api/games/{b}").json()["view"] == view_b
    assert client.get(f"/api/games/{a}").json()["view"] != view_a
    # An id that is not a game's: 404, even of the right shape.
    other = "A" * 22
    assert _act(client, other, button="STAY").status_code == 404
    assert client.get(f"/api/games/{other}").status_code == 404


def test_a_restart_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "games"
    c1 = _client(data)
    gid, first = _new(c1, game="holdem", players=3, money=60)
    call = next(b["name"] for b in first["buttons"] if b["name"] in ("CALL", "CHECK"))
    assert _act(c1, gid, button=call).status_code == 200
    view = c1.get(f"/api/games/{gid}").json()["view"]
    c2 = _client(data)  # a new app over the same folder: the server restarted
    again = c2.get(f"/api/games/{gid}").json()["view"]
    view.pop("events"), again.pop("events")
    assert again == view
    buttons = again["buttons"]
    assert _act(c2, gid, button=buttons[0]["name"], amount=buttons[0]["min"]).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/..%2F..%2Fetc%2Fpasswd",
        "/api/games/../../etc/passwd",
        "/api/games/%2e%2e%2fsecret",
        "/api/games/" + "A" * 21 + ".",
        "/api/games/" + "A" * 23,
        "/api/games/AAAAAAAAAAAAAAAAAAAAA%00",
        "/game/..%2F..%2Fpyproject.toml",
        "/static/../app.py",
        "/static/..%2Fapp.py",
        "/static/%2e%2e/app.py",
        "/etc/passwd",
    ],
)
def test_paths_from_the_client_never_reach_the_file_system(
    client: TestClient, tmp_path: Path, path: str
) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text('{"format": "poker_env.play"}')
    r = client.get(path)
    assert r.status_code == 404
    assert "poker_env.play" not in r.text and "import" not in r.text
    r = client.post(path + "/act", json={"button": "STAY"})
    assert r.status_code in (404, 405)
    assert outside.read_text() == '{"format": "poker_env.play"}'


def test_a_saved_file_planted_with_a_foreign_name_is_not_served(
    client: TestClient, tmp_path: Path
) -> None:
    gid, _ = _new(client)
    data = tmp_path / "games"
    (data / "notes.json").write_text((data / f"{gid}.json").read_text())
    assert client.get("/api/games/notes").status_code == 404
    assert client.get("/api/games/notes.json").status_code == 404


def test_pages_and_headers(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "Play against the computer" in r.text
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    gid, _ = _new(client)
    assert client.get(f"/game/{gid}").status_code == 200
    assert client.get("/game/" + "B" * 22).status_code == 404
    assert client.get("/static/game.js").status_code == 200
    assert client.get(f"/api/games/{gid}").headers["cache-control"] == "no-store"


def test_only_loopback_host_names_are_answered_by_default(tmp_path: Path) -> None:
    c = TestClient(create_app(tmp_path / "g"), base_url="http://127.0.0.1")
    assert c.get("/").status_code == 200
    # DNS rebinding: a page of evil.example resolving to 127.0.0.1 is refused.
    assert c.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_the_least_money_of_each_game_starts_a_game_and_is_offered(client: TestClient) -> None:
    # The start page reads the least money from /api/tables; at that money a game starts.
    t = client.get("/api/tables").json()
    assert t["min_money"] == {"draw": 5, "holdem": 3, "reddog": 2}
    for game, low in t["min_money"].items():
        r = client.post("/api/games", json={"game": game, "seed": 3, "money": low})
        assert r.status_code == 201, r.text
        r = client.post("/api/games", json={"game": game, "seed": 3, "money": low - 1})
        assert r.status_code == 400 and f"from {low} to 1,000,000,000" in r.json()["error"]


def test_a_seed_sent_as_digits_is_the_same_seed_exactly(client: TestClient) -> None:
    # Past 2**53 a browser's number is rounded: the page sends the digits as typed.
    big = 2**60 + 1
    a = client.post("/api/games", json={"game": "holdem", "seed": str(big)}).json()
    b = client.post("/api/games", json={"game": "holdem", "seed": big}).json()
    assert a["view"]["cards"] == b["view"]["cards"]


def test_a_play_made_on_a_screen_the_game_has_left_is_refused(
    client: TestClient, tmp_path: Path
) -> None:
    """A second press (a double click that reaches the next table) or a press in a tab
    another tab left behind carries the old turn: 409 with the table now, nothing done."""
    r = client.post("/api/games", json={"game": "holdem", "seed": 22})
    gid, turn = r.json()["id"], r.json()["turn"]
    assert turn > 0  # the deal and the blinds are in the log
    first = _act(client, gid, button="CALL", turn=turn)
    assert first.status_code == 200 and first.json()["turn"] > turn
    saved = (tmp_path / "games" / f"{gid}.json").read_bytes()
    again = _act(client, gid, button="CALL", turn=turn)
    assert again.status_code == 409
    body = again.json()
    assert body["error"].startswith("that was pressed on a screen the game had already left")
    assert (body["view"], body["turn"]) == (first.json()["view"], first.json()["turn"])
    assert (tmp_path / "games" / f"{gid}.json").read_bytes() == saved
    # A turn that is not a count is a malformed request; the current turn plays.
    for bad in (-1, "3", 1.5, True):
        r = _act(client, gid, button="CALL", turn=bad)
        assert r.status_code == 400 and r.json()["error"].startswith("turn must be a whole")
    assert _act(client, gid, button="FOLD", turn=first.json()["turn"]).status_code == 200


def test_the_turn_is_the_same_after_a_restart(tmp_path: Path) -> None:
    c = _client(tmp_path / "games")
    gid, _ = _new(c)
    played = _act(c, gid, button="BET", amount=7).json()
    again = _client(tmp_path / "games").get(f"/api/games/{gid}").json()
    assert again["turn"] == played["turn"] and again["view"] == played["view"]
    assert (
        _act(_client(tmp_path / "games"), gid, button="CALL", turn=played["turn"] - 1).status_code
        == 409
    )


def test_starlettes_own_refusals_answer_json_too(tmp_path: Path) -> None:
    c = TestClient(create_app(tmp_path / "g"), base_url="http://127.0.0.1")
    r = c.put("/api/games")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json() == {"error": "PUT is not taken here; allowed: POST"}
    r = c.get("/", headers={"Host": "evil.example"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("this server does not answer the Host 'evil.example'")
    assert c.get("/", headers={"Host": "[::1]:8000"}).status_code == 200


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost:8000", "localhost"),
        ("LocalHost", "localhost"),
        ("[::1]:8000", "[::1]"),
        ("[::1]", "[::1]"),
        ("::1", "::1"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("", None),
        (None, None),
        ("[::1", None),
        ("[::1]evil", None),
        ("[::1].x:80", None),
        ("localhost:80x", None),
    ],
)
def test_the_host_name_is_read_without_its_port(header: str | None, name: str | None) -> None:
    from poker_env_agents.play.web.app import host_name

    assert host_name(header) == name
