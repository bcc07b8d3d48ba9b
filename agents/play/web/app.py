"""Play in the browser: a small Starlette app (``scripts/serve.py``, ``poker-play web``).

Pages: ``/`` (the start page: game, opponent level, deck, players) and
``/game/{id}`` (one game; plain HTML, CSS and JavaScript from ``static/``, no build
step). The page talks JSON to the API:

| method and path | body | answer |
|---|---|---|
| ``POST /api/games`` | ``{"game", "opponent", "deck", "players", "seed"?}`` | 201 ``{"id", "view"}`` |
| ``GET /api/games/{id}`` | | ``{"id", "view"}`` |
| ``POST /api/games/{id}/act`` | ``{"button", "amount"?, "cards"?}`` | ``{"id", "view"}`` |

``view`` is :meth:`poker_env_agents.play.common.Session.view`: the table from the person's
seat, the legal buttons with their bounds, what just happened, each hand's result.

Safe by default:

- binds 127.0.0.1 (``--host`` changes it) and, on a loopback address, answers
  only requests whose Host is a loopback name (no DNS rebinding);
- every request is checked: JSON bodies only (``Content-Type: application/json``,
  so another site's page cannot post a plain form here), at most 4 KB, known keys
  of the right types; an illegal action answers 409 with the reason, a malformed
  request 400, an unknown game 404, and nothing changes;
- a game is named by a random id (``secrets.token_urlsafe``, 128 bits), checked by
  a strict pattern before it is used; the id is the only key to a game, so one
  game's id cannot act in another;
- no path from the client reaches the file system: the save file of a game is
  named by the server from the checked id, in the server's folder; opponents are
  levels by name (``easy``, ``normal``, ``hard``), never a path;
- games are saved as JSON after every change (no pickle), so a page reload or a
  server restart loses nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from poker_env.errors import ConfigError
from poker_env_agents.assets import package_dir
from poker_env_agents.play.common import GAME_NAMES, InputError, SaveFileError, Session
from poker_env_agents.play.sessions import load_session, new_session

__all__ = ["ID_PATTERN", "GameStore", "create_app", "main"]

STATIC = package_dir("poker_env_agents.play.web", "static")
#: A game id: what ``secrets.token_urlsafe(16)`` makes (22 URL-safe characters).
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")
MAX_BODY = 4096
LEVELS = ("easy", "normal", "hard")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
_CREATE_KEYS = {"game", "opponent", "deck", "players", "seed", "money", "items"}
_ACT_KEYS = {"button", "amount", "cards"}


class RequestError(Exception):
    """A request refused: ``status`` and the reason sent back."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class GameStore:
    """The games being played, in memory and as one JSON file each in ``directory``.

    Files are named by the server (``<id>.json``) from ids that match
    :data:`ID_PATTERN`; a game not in memory (after a restart) is loaded from its
    file by replaying it.

    Args:
        directory: the folder of the saved games (created, private to the user).
        max_games: the most games kept (the oldest file goes first beyond it).
    """

    def __init__(self, directory: Path, max_games: int = 1000) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.max_games = max_games
        self._games: dict[str, Session] = {}
        # One lock for every game: a local app serves one person, and numba's
        # compiled steps hold the GIL anyway.
        self.lock = threading.Lock()

    def _path(self, gid: str) -> Path:
        if not ID_PATTERN.fullmatch(gid):
            raise RequestError(404, "no such game")
        return self.directory / f"{gid}.json"

    def create(self, game: str, options: dict[str, Any]) -> tuple[str, Session]:
        """A new game; returns its id and session.

        Raises:
            ConfigError: a bad option (the session's own checks).
        """
        session = new_session(game, **options)
        gid = secrets.token_urlsafe(16)
        self._games[gid] = session
        self.save(gid, session)
        self._prune()
        return gid, session

    def get(self, gid: str) -> Session:
        """The game ``gid``, from memory or its file.

        Raises:
            RequestError: 404 for an id that is malformed or names no game; 409 when
                the saved game cannot be loaded.
        """
        path = self._path(gid)
        session = self._games.get(gid)
        if session is not None:
            return session
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RequestError(404, "no such game") from None
        try:
            session = load_session(text)
        except (SaveFileError, ConfigError) as exc:
            raise RequestError(409, f"the saved game cannot be loaded: {exc}") from None
        self._games[gid] = session
        return session

    def save(self, gid: str, session: Session) -> None:
        """Write the game's JSON save (atomically: a crash leaves the old file)."""
        path = self._path(gid)
        tmp = path.with_name(f".{gid}.tmp")
        tmp.write_text(session.to_json(), encoding="utf-8")
        os.replace(tmp, path)

    def _prune(self) -> None:
        files = sorted(self.directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for p in files[: max(0, len(files) - self.max_games)]:
            self._games.pop(p.stem, None)
            p.unlink(missing_ok=True)


async def _json_body(request: Request, keys: set[str]) -> dict[str, Any]:
    """The request's JSON object, checked: its type, size and keys."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise RequestError(415, "send the body as JSON (Content-Type: application/json)")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise RequestError(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise RequestError(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise RequestError(400, "the body must be a JSON object")
    extra = sorted(set(data) - keys)
    if extra:
        raise RequestError(400, f"unknown field {extra[0]!r}; allowed: {sorted(keys)}")
    return data


def _int_field(data: dict[str, Any], key: str, lo: int, hi: int) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RequestError(400, f"{key} must be a whole number from {lo} to {hi}, not {value!r}")
    return value


def _create_options(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    game = data.get("game")
    if game not in GAME_NAMES:
        raise RequestError(400, f"game must be one of {list(GAME_NAMES)}, not {game!r}")
    opponent = data.get("opponent", "easy")
    if opponent not in LEVELS:
        # Levels by name only: a path from the client never reaches the file system.
        raise RequestError(400, f"opponent must be one of {list(LEVELS)}, not {opponent!r}")
    seed = _int_field(data, "seed", 0, 2**63 - 1)
    opts: dict[str, Any] = {
        "opponent": opponent,
        "seed": seed if seed is not None else secrets.randbelow(2**31),
    }
    money = _int_field(data, "money", 1, 10**9)
    if money is not None:
        opts["money"] = money
    if game == "draw":
        for key in ("players",):
            if data.get(key) is not None:
                raise RequestError(400, f"{key} is not an option of the draw (two players)")
        deck = data.get("deck", 52)
        if isinstance(deck, bool) or deck not in (32, 52):
            raise RequestError(400, f"deck must be 32 or 52, not {deck!r}")
        opts["deck"] = deck
        items = _int_field(data, "items", 1, 6)
        if items is not None:
            opts["items"] = items
    else:
        for key in ("deck", "items"):
            if data.get(key) is not None:
                raise RequestError(400, f"{key} is an option of the draw only")
        players = _int_field(data, "players", 2, 10)
        if players is not None:
            opts["players"] = players
    return str(game), opts


def _act_fields(data: dict[str, Any]) -> tuple[str, int | None, list[int]]:
    button = data.get("button")
    if not isinstance(button, str) or not 1 <= len(button) <= 20:
        raise RequestError(400, f"button must be a button's name, not {button!r}")
    amount = data.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise RequestError(400, f"amount must be a whole number of chips, not {amount!r}")
    cards = data.get("cards", [])
    if cards is None:
        cards = []
    if (
        not isinstance(cards, list)
        or len(cards) > 5
        or any(isinstance(c, bool) or not isinstance(c, int) for c in cards)
    ):
        raise RequestError(400, f"cards must be a list of card numbers 1 to 5, not {cards!r}")
    return button, amount, cards


def _answer(gid: str, session: Session, status: int = 200) -> JSONResponse:
    return JSONResponse({"id": gid, "view": session.view()}, status_code=status)


def create_app(
    data_dir: Path | str,
    allowed_hosts: Sequence[str] | None = None,
    max_games: int = 1000,
) -> Starlette:
    """The app, its games saved under ``data_dir``.

    Args:
        data_dir: the folder of the saved games.
        allowed_hosts: the Host names answered (None: the loopback names).
        max_games: the most games kept on disk.
    """
    store = GameStore(Path(data_dir), max_games)

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestError as exc:
                return JSONResponse({"error": exc.reason}, status_code=exc.status)

        return endpoint

    async def create(request: Request) -> Response:
        data = await _json_body(request, _CREATE_KEYS)
        game, opts = _create_options(data)

        def work() -> Response:
            with store.lock:
                try:
                    gid, session = store.create(game, opts)
                except ConfigError as exc:
                    raise RequestError(400, str(exc)) from None
                return _answer(gid, session, 201)

        return await run_in_threadpool(work)

    async def show(request: Request) -> Response:
        gid = request.path_params["gid"]

        def work() -> Response:
            with store.lock:
                return _answer(gid, store.get(gid))

        return await run_in_threadpool(work)

    async def act(request: Request) -> Response:
        gid = request.path_params["gid"]
        data = await _json_body(request, _ACT_KEYS)
        button, amount, cards = _act_fields(data)

        def work() -> Response:
            with store.lock:
                session = store.get(gid)
                try:
                    session.act(button, amount, cards)
                except InputError as exc:
                    raise RequestError(409, str(exc)) from None
                store.save(gid, session)
                return _answer(gid, session)

        return await run_in_threadpool(work)

    async def start_page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def game_page(request: Request) -> Response:
        gid = request.path_params["gid"]
        with store.lock:
            store.get(gid)  # 404 for an unknown game
        return FileResponse(STATIC / "game.html")

    async def page_404(request: Request) -> Response:
        raise RequestError(404, "not found")

    class SecurityHeaders(BaseHTTPMiddleware):
        async def dispatch(
            self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
        ) -> Response:
            response = await call_next(request)
            h = response.headers
            h["Content-Security-Policy"] = (
                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                "base-uri 'none'; form-action 'self'"
            )
            h["X-Content-Type-Options"] = "nosniff"
            h["Referrer-Policy"] = "no-referrer"
            h["X-Frame-Options"] = "DENY"
            if request.url.path.startswith("/api/"):
                h["Cache-Control"] = "no-store"
            return response

    hosts = list(allowed_hosts) if allowed_hosts is not None else LOOPBACK_HOSTS
    routes = [
        Route("/", guarded(start_page)),
        Route("/game/{gid}", guarded(game_page)),
        Route("/api/games", guarded(create), methods=["POST"]),
        Route("/api/games/{gid}", guarded(show)),
        Route("/api/games/{gid}/act", guarded(act), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{rest:path}", guarded(page_404)),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
            Middleware(SecurityHeaders),
        ],
    )
    app.state.store = store
    return app


def default_data_dir() -> Path:
    """Where the server keeps its games: ``$POKER_ENV_PLAY_DIR`` or ``~/.poker_env/games``."""
    env = os.environ.get("POKER_ENV_PLAY_DIR")
    return Path(env) if env else Path.home() / ".poker_env" / "games"


def main(argv: Sequence[str] | None = None) -> int:
    """The ``serve.py`` / ``poker-play web`` command: run the app with uvicorn."""
    p = argparse.ArgumentParser(
        prog="serve.py", description="Play against the computer in the browser."
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data", type=Path, default=None, help="folder of the saved games")
    args = p.parse_args(argv)
    import uvicorn

    loopback = args.host in ("127.0.0.1", "localhost", "::1")
    # Another address was chosen on purpose: answer whatever name reaches it.
    hosts = None if loopback else ["*"]
    app = create_app(args.data or default_data_dir(), allowed_hosts=hosts)
    print(f"Open http://{'localhost' if loopback else args.host}:{args.port}/ in a browser.")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
