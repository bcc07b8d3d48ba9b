"""The browser app's server under abuse and across restarts: bodies refused before they
are read, a refusal that brings the current table, games kept in a sensible order, one
client's flood limited, an expired game's readable page, every error as JSON, one
game's replay holding up no other, the network warning, and every table the start
page can ask for answering 2xx or a readable 4xx."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from poker_env_agents.play.sessions import trained_tables
from poker_env_agents.play.web import app as web
from poker_env_agents.play.web.app import MAX_BODY, create_app, host_settings


def _client(data: Path, **kw: Any) -> TestClient:
    return TestClient(create_app(data, allowed_hosts=["testserver"], **kw))


def _new(c: TestClient, **body: Any) -> str:
    r = c.post("/api/games", json={"game": "draw", "seed": 1, **body})
    assert r.status_code == 201, r.text
    gid: str = r.json()["id"]
    return gid


# ------------------------------------------------------------------ the body limit
def _asgi_post(app: Any, headers: list[tuple[bytes, bytes]], chunks: int) -> tuple[int, int]:
    """POST /api/games/x/act with ``chunks`` bodies of 1 KB offered; (status, bytes taken)."""
    taken = 0
    sent = 0
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal taken, sent
        if sent >= chunks:
            return {"type": "http.disconnect"}
        sent += 1
        taken += 1024
        return {"type": "http.request", "body": b" " * 1024, "more_body": sent < chunks}

    async def send(msg: dict[str, Any]) -> None:
        nonlocal status
        if msg["type"] == "http.response.start":
            status = msg["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/games/" + "A" * 22 + "/act",
        "raw_path": b"/api/games/" + b"A" * 22 + b"/act",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    return status, taken


def test_a_declared_large_body_is_refused_before_any_of_it_is_read(tmp_path: Path) -> None:
    app = create_app(tmp_path, allowed_hosts=["testserver"])
    # 100 MB declared: 413 from the header alone, not one chunk taken.
    status, taken = _asgi_post(app, [(b"content-length", str(100 * 2**20).encode())], 100_000)
    assert (status, taken) == (413, 0)


def test_an_undeclared_large_body_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    app = create_app(tmp_path, allowed_hosts=["testserver"])
    # A body streamed without a length (100 MB offered in 1 KB chunks): reading stops
    # at the first chunk past the limit, so memory holds at most the limit plus a chunk.
    status, taken = _asgi_post(app, [], 100_000)
    assert status == 413
    assert taken <= MAX_BODY + 1024


def test_a_lying_content_length_is_refused(tmp_path: Path) -> None:
    c = _client(tmp_path)
    gid = _new(c)
    r = c.post(
        f"/api/games/{gid}/act",
        content=b'{"button": "STAY"}',
        headers={"Content-Type": "application/json", "Content-Length": "x1"},
    )
    assert r.status_code == 400 and "Content-Length" in r.json()["error"]


# ------------------------------------------------------------------ a stale tab
def test_a_refusal_brings_the_game_as_it_is_now(tmp_path: Path) -> None:
    c = _client(tmp_path)
    gid = _new(c)
    old = c.get(f"/api/games/{gid}").json()["view"]
    # Another tab plays STAY; this tab, still showing BET 5..495, sends BET 7.
    now = c.post(f"/api/games/{gid}/act", json={"button": "STAY"}).json()["view"]
    assert now != old
    r = c.post(f"/api/games/{gid}/act", json={"button": "BET", "amount": 7})
    if r.status_code == 200:  # (BET may still be legal after her answer: try a word)
        pytest.skip("seed 1 leaves BET legal")
    assert r.status_code == 409
    assert r.json()["view"] == c.get(f"/api/games/{gid}").json()["view"] == now


# ------------------------------------------------------------------ eviction
def _age(data: Path, gid: str, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(data / f"{gid}.json", (t, t))


def test_eviction_takes_finished_then_idle_games_never_one_in_play(tmp_path: Path) -> None:
    data = tmp_path / "g"
    c = _client(data, max_games=3, idle_after=600)
    playing = _new(c)
    idle = _new(c)
    finished = _new(c)
    c.post(f"/api/games/{finished}/act", json={"button": "DROP"})
    # Drop until the match is over is long; mark it finished as its save would.
    save = json.loads((data / f"{finished}.json").read_text())
    save["ui"]["over"] = True
    (data / f"{finished}.json").write_text(json.dumps(save))
    _age(data, playing, 60)  # played a minute ago
    _age(data, idle, 7200)  # two hours idle
    _age(data, finished, 10)  # finished just now
    c = _client(data, max_games=3, idle_after=600)  # a restart reads the folder
    one = _new(c)
    assert not (data / f"{finished}.json").exists()  # the finished game first
    assert (data / f"{idle}.json").exists()
    two = _new(c)
    assert not (data / f"{idle}.json").exists()  # then the long-idle one
    # Full of games played within the hour: a new game is refused, none evicted.
    r = c.post("/api/games", json={"game": "draw"})
    assert r.status_code == 503 and "played within the hour" in r.json()["error"]
    for gid in (playing, one, two):
        assert c.get(f"/api/games/{gid}").status_code == 200


def test_one_client_may_start_only_so_many_games_a_minute(tmp_path: Path) -> None:
    c = _client(tmp_path, creates_per_minute=3)
    for _ in range(3):
        _new(c)
    r = c.post("/api/games", json={"game": "draw"})
    assert r.status_code == 429
    assert r.json()["error"].startswith("too many new games from this address: at most 3")


def test_a_game_no_longer_kept_has_a_readable_page(tmp_path: Path) -> None:
    c = _client(tmp_path)
    r = c.get("/game/" + "Q" * 22)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "This game is not here" in r.text and 'href="/"' in r.text


def test_a_save_that_cannot_be_loaded_has_a_readable_page(tmp_path: Path) -> None:
    """Opening the address of a damaged save once showed the API's JSON (found by
    playing): a page now says why, escaped, and the file is left as it was; the API
    still answers JSON."""
    c = _client(tmp_path)
    gid = _new(c)
    c.post(f"/api/games/{gid}/act", json={"button": "STAY"})
    path = tmp_path / f"{gid}.json"
    saved = json.loads(path.read_text())
    saved["state"]["actions"][0] = ["<b>STAY</b>", 0]
    damaged = json.dumps(saved)
    path.write_text(damaged)
    fresh = _client(tmp_path)  # a restarted server: the game is read from its file
    r = fresh.get(f"/game/{gid}")
    assert r.status_code == 409 and r.headers["content-type"].startswith("text/html")
    assert "This game cannot be loaded" in r.text and 'href="/"' in r.text
    assert "<b>STAY</b>" not in r.text and "&lt;b&gt;STAY&lt;/b&gt;" in r.text
    assert path.read_text() == damaged
    api = fresh.get(f"/api/games/{gid}")
    assert api.status_code == 409 and "cannot be loaded" in api.json()["error"]


# ------------------------------------------------------------------ errors are JSON
def test_a_bug_answers_json_with_a_reason_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = _client(tmp_path)

    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("/secret/path/in/a/message")

    monkeypatch.setattr(web, "new_session", broken)
    r = c.post("/api/games", json={"game": "draw"})
    assert r.status_code == 500
    assert r.json() == {"error": "the server failed (RuntimeError); nothing was changed"}


# ------------------------------------------------------------------ locks
def test_one_games_lock_holds_up_no_other_game_nor_static_files(tmp_path: Path) -> None:
    app = create_app(tmp_path, allowed_hosts=["testserver"])
    c = TestClient(app)
    slow = _new(c)
    other = _new(c)
    store = app.state.store
    done: list[int] = []
    with store.locked(slow):  # as a long replay of ``slow`` would hold it
        t = threading.Thread(target=lambda: done.append(c.get(f"/game/{slow}").status_code))
        t.start()
        t0 = time.monotonic()
        assert c.get("/static/style.css").status_code == 200
        assert c.get(f"/api/games/{other}").status_code == 200
        assert c.get(f"/game/{other}").status_code == 200
        assert time.monotonic() - t0 < 5
        assert done == []  # the slow game's page still waits for its lock
    t.join(10)
    assert done == [200]


# ------------------------------------------------------------------ the network warning
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "[fe80::1]"])
def test_a_non_loopback_host_warns_and_keeps_the_host_check(host: str) -> None:
    names, url, warning = host_settings(host, 8000)
    assert warning is not None
    assert "open" in warning and "no password or other authentication" in warning
    assert "*" not in names and "evil.example" not in names
    assert "localhost" in names
    assert ":::" not in url and url.endswith(":8000/")
    if host == "192.168.1.5":
        assert url == "http://192.168.1.5:8000/" and "192.168.1.5" in names


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_a_loopback_host_does_not_warn(host: str) -> None:
    names, url, warning = host_settings(host, 8000)
    assert (
        warning is None
        and url == "http://localhost:8000/"
        and names[:2] == ["127.0.0.1", "localhost"]
    )


def test_serve_prints_the_warning_without_binding(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    assert web.main(["--host", "::", "--port", "8123", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "WARNING: --host :: opens the game to the network" in out.err
    assert "http://:::" not in out.out and ":8123/" in out.out
    assert seen["host"] == "::"


# ------------------------------------------------------------------ every start-page table
def test_every_table_the_start_page_can_ask_for_answers_2xx_or_a_readable_4xx(
    tmp_path: Path,
) -> None:
    c = _client(tmp_path, creates_per_minute=10_000)
    offered = c.get("/api/tables").json()
    assert offered["trained"] == {
        g: {str(v): why for v, why in t.items()} for g, t in trained_tables().items()
    }
    root = str(Path(web.__file__).resolve().parents[3])
    for game, table in offered["trained"].items():
        option = offered["option"][game]
        for value, why in table.items():
            for level in offered["levels"]:
                body = {"game": game, "opponent": level, option: int(value), "seed": 2}
                r = c.post("/api/games", json=body)
                assert root not in r.text and "/agents/models" not in r.text, body
                if level == "easy" or why is None:
                    assert r.status_code == 201, (body, r.text)
                    view = r.json()["view"]
                    assert view["game"] == game
                else:
                    assert r.status_code == 400, (body, r.text)
                    assert (
                        why in r.json()["error"] and "easy plays every table" in r.json()["error"]
                    )


def test_the_event_log_survives_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "g"
    c1 = _client(data)
    r = c1.post("/api/games", json={"game": "holdem", "players": 3, "seed": 5})
    gid = r.json()["id"]
    view = r.json()["view"]
    call = next(b["name"] for b in view["buttons"] if b["name"] in ("CALL", "CHECK"))
    now = c1.post(f"/api/games/{gid}/act", json={"button": call}).json()["view"]
    assert now["events"]
    again = _client(data).get(f"/api/games/{gid}").json()["view"]
    assert again == now


def test_the_data_folder_s_links_and_foreign_saves_are_refused(tmp_path: Path) -> None:
    """From a security review: a save whose opponent names a model file made the server
    load that file; a link named like a game's temporary file was written through
    (the game's JSON landed outside the folder); a dangling link or a pipe named like
    a game stopped the server from starting."""
    c = _client(tmp_path)
    gid = _new(c)
    victim = tmp_path.parent / f"{tmp_path.name}-victim.txt"
    victim.write_text("untouched")
    (tmp_path / f".{gid}.tmp").symlink_to(victim)  # the old fixed temporary name
    assert c.post(f"/api/games/{gid}/act", json={"button": "STAY"}).status_code == 200
    assert victim.read_text() == "untouched"
    # A save naming a policy file as the opponent is not one of this server's.
    saved = json.loads((tmp_path / f"{gid}.json").read_text())
    saved["opponent"] = str(tmp_path / "model.zip")
    (tmp_path / f"{gid}.json").write_text(json.dumps(saved))
    other = "L" * 22
    (tmp_path / f"{other}.json").symlink_to(tmp_path / "nowhere.json")
    os.mkfifo(tmp_path / f"{'F' * 22}.json")
    fresh = _client(tmp_path)  # starts: the link and the pipe are not games
    r = fresh.get(f"/api/games/{gid}")
    assert r.status_code == 409 and "opponent is not easy, normal or hard" in r.json()["error"]
    assert fresh.get(f"/api/games/{other}").status_code == 409
