"""Play in the browser: a small Starlette app (``scripts/serve.py``, ``poker-play web``).

Pages: ``/`` (the start page: game, opponent level, deck, players) and
``/game/{id}`` (one game; plain HTML, CSS and JavaScript from ``static/``, no build
step). The page talks JSON to the API:

| method and path | body | answer |
|---|---|---|
| ``POST /api/games`` | ``{"game", "opponent", "deck", "players", "seed"?, "money"?, "items"?}`` | 201 ``{"id", "view", "turn"}`` |
| ``GET /api/games/{id}`` | | ``{"id", "view", "turn"}`` |
| ``POST /api/games/{id}/act`` | ``{"button", "amount"?, "cards"?, "turn"?}`` | ``{"id", "view", "turn"}`` |
| ``GET /api/tables`` | | the levels, which tables the trained opponents play, the least money of each game |

``turn`` counts what has happened in the game (its log's length). An action that
sends the ``turn`` of the screen it was made on is refused (409) when the game has
moved on since: a second press on a button that a fast answer had already
replaced, or a press in a tab that another tab's play left behind, is never taken
as a play on a table the person has not seen. A refused action (409) also carries
``view`` and ``turn``, the game as it is now, so the page shows the current table at
once. A seed may be sent as a string of digits (a browser's numbers stop being
exact past 2**53).

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
- games are saved as JSON after every change (no pickle), the log of what
  happened included, so a page reload or a server restart loses nothing;
- a body is refused from its declared ``Content-Length`` before it is read, and
  reading stops at the limit; replaying a saved game runs off the event loop
  under that game's own lock (other games and static files are not held up);
- at most ``max_games`` games are kept: finished games go first, then games idle
  for more than an hour, the oldest first; a game played within the hour is never
  evicted (a new game is refused instead), and each client may start at most
  ``creates_per_minute`` games a minute; the page of a game no longer kept says so;
- every error answers JSON with the reason (a bug: 500 with its kind, no
  traceback); tables the trained opponents cannot play are refused with the reason
  (and the start page does not offer them).
"""

from __future__ import annotations

import argparse
import html
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from poker_env.errors import ConfigError
from poker_env_agents.assets import package_dir
from poker_env_agents.play.common import GAME_NAMES, InputError, SaveFileError, Session
from poker_env_agents.play.sessions import (
    GAME_TITLES,
    MIN_MONEY,
    TABLE_CHOICES,
    load_session,
    new_session,
    table_problem,
    trained_summary,
    trained_tables,
)
from poker_env_agents.runtime import PolicyFileError

__all__ = ["ID_PATTERN", "GameStore", "create_app", "host_settings", "main"]

STATIC = package_dir("poker_env_agents.play.web", "static")
#: A game id: what ``secrets.token_urlsafe(16)`` makes (22 URL-safe characters).
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")
MAX_BODY = 4096
LEVELS = ("easy", "normal", "hard")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
#: A game not played for this long may be evicted when the store is full (seconds).
IDLE_AFTER = 3600.0
_CREATE_KEYS = {"game", "opponent", "deck", "players", "seed", "money", "items"}
MAX_MONEY = 10**9
_ACT_KEYS = {"button", "amount", "cards", "turn"}

EXPIRED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>poker_env: no such game</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/style.css"></head>
<body class="start"><main class="start-card" id="expired">
<h1>This game is not here</h1>
<p class="lead">The server no longer keeps a game at this address: it was never
started, or it expired (the server keeps a limited number of games, finished and
long-idle ones go first).</p>
<p><a class="primary" href="/">Start a new game</a></p>
</main></body></html>
"""


BROKEN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>poker_env: this game cannot be loaded</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/style.css"></head>
<body class="start"><main class="start-card" id="broken">
<h1>This game cannot be loaded</h1>
<p class="lead" id="reason">{reason}</p>
<p>The saved file was left as it is.</p>
<p><a class="primary" href="/">Start a new game</a></p>
</main></body></html>
"""


def host_name(header: str | None) -> str | None:
    """The name in a Host header, lower case, without its port (``[::1]:8000`` ->
    ``[::1]``); None when there is none."""
    if not header or not header.strip():
        return None
    raw = header.strip().lower()
    if raw.startswith("["):
        end = raw.find("]")
        rest = raw[end + 1 :] if end > 0 else ""
        if end < 0 or not (rest == "" or re.fullmatch(r":[0-9]{1,5}", rest)):
            return None  # "[::1]evil", "[::1" : not a host and port
        return raw[: end + 1]
    if raw.count(":") == 1:
        name, port = raw.split(":")
        return name if re.fullmatch(r"[0-9]{1,5}", port) else None
    return raw


class _HostCheck:
    """Answers only requests whose Host is one of ``allowed_hosts`` exactly (what
    Starlette's TrustedHostMiddleware checks), refusing in JSON as every other error
    here does (Starlette's answers in plain text)."""

    def __init__(self, app: Any, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.allowed_hosts = [h.lower() for h in allowed_hosts]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = Headers(scope=scope).get("host")
        if host_name(raw) in self.allowed_hosts:
            await self.app(scope, receive, send)
            return
        reason = f"this server does not answer the Host {raw!r}; allowed: " + ", ".join(
            self.allowed_hosts
        )
        await JSONResponse({"error": reason}, status_code=400)(scope, receive, send)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (a method a path does not take: 405) as JSON."""
    assert isinstance(exc, HTTPException)
    reason = str(exc.detail)
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        reason = f"{request.method} is not taken here; allowed: {allowed}"
    return JSONResponse({"error": reason}, status_code=exc.status_code, headers=exc.headers)


class RequestError(Exception):
    """A request refused: ``status``, the reason sent back, and extra JSON fields."""

    def __init__(self, status: int, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.extra = extra


class GameStore:
    """The games being played, in memory and as one JSON file each in ``directory``.

    Files are named by the server (``<id>.json``) from ids that match
    :data:`ID_PATTERN`; a game not in memory (after a restart) is loaded from its
    file by replaying it. Each game has its own lock (a replay of one long match
    holds up no other game); :attr:`lock` guards only the store's own tables.

    Args:
        directory: the folder of the saved games (created, private to the user).
        max_games: the most games kept (see :meth:`_prune` for which go first).
        idle_after: seconds without play after which a game may be evicted.
    """

    def __init__(
        self, directory: Path, max_games: int = 1000, idle_after: float = IDLE_AFTER
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.max_games = max_games
        self.idle_after = idle_after
        self._games: dict[str, Session] = {}
        self._locks: dict[str, threading.Lock] = {}
        # gid -> (finished, last played, wall clock): what eviction looks at.
        self._index: dict[str, tuple[bool, float]] = {}
        self.lock = threading.Lock()
        for p in self.directory.glob("*.json"):
            # Plain files only: a link or a pipe named like a game is not one.
            if ID_PATTERN.fullmatch(p.stem) and p.is_file() and not p.is_symlink():
                self._index[p.stem] = (_saved_over(p), p.stat().st_mtime)

    def _path(self, gid: str) -> Path:
        if not ID_PATTERN.fullmatch(gid):
            raise RequestError(404, "no such game")
        return self.directory / f"{gid}.json"

    @contextmanager
    def locked(self, gid: str) -> Iterator[None]:
        """Hold game ``gid``'s own lock."""
        self._path(gid)
        with self.lock:
            lock = self._locks.setdefault(gid, threading.Lock())
        with lock:
            yield

    def __len__(self) -> int:
        with self.lock:
            return len(self._index)

    def create(self, game: str, options: dict[str, Any]) -> tuple[str, Session]:
        """A new game; returns its id and session.

        Raises:
            ConfigError: a bad option (the session's own checks).
            RequestError: 503 when the store is full of games played within the hour.
        """
        with self.lock:
            room = self._make_room()
        if not room:
            raise RequestError(
                503,
                f"the server keeps {self.max_games} games and every one was played within "
                "the hour: finish one or try again later",
            )
        session = new_session(game, **options)
        gid = secrets.token_urlsafe(16)
        with self.locked(gid):
            with self.lock:
                self._games[gid] = session
            self.save(gid, session)
        return gid, session

    def get(self, gid: str) -> Session:
        """The game ``gid``, from memory or its file (call with its lock held).

        Raises:
            RequestError: 404 for an id that is malformed or names no game; 409 when
                the saved game cannot be loaded.
        """
        path = self._path(gid)
        with self.lock:
            session = self._games.get(gid)
        if session is not None:
            return session
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise RequestError(409, "the saved game cannot be loaded: not a plain file")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RequestError(404, "no such game") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RequestError(409, f"the saved game cannot be loaded: {exc}") from None
        try:
            envelope = json.loads(text)
        except json.JSONDecodeError:
            envelope = None
        if isinstance(envelope, dict) and envelope.get("opponent") not in LEVELS:
            # The browser starts games at a level only: a save naming a file is not one
            # of this server's (a model file is never loaded from a save here).
            raise RequestError(
                409, "the saved game cannot be loaded: its opponent is not easy, normal or hard"
            )
        try:
            session = load_session(text)
        except (SaveFileError, ConfigError, PolicyFileError) as exc:
            raise RequestError(409, f"the saved game cannot be loaded: {exc}") from None
        with self.lock:
            self._games[gid] = session
            self._index.setdefault(gid, (session.is_over, time.time()))
        return session

    def save(self, gid: str, session: Session) -> None:
        """Write the game's JSON save (atomically: a crash leaves the old file). The
        temporary file has a fresh random name and is made new (O_EXCL, O_NOFOLLOW): a
        link planted in the folder is never written through."""
        path = self._path(gid)
        tmp = path.with_name(f".{gid}.{secrets.token_hex(8)}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(session.to_json())
                fh.flush()
                os.fsync(fh.fileno())  # on disk before it replaces the old save
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        with self.lock:
            self._index[gid] = (session.is_over, time.time())

    def _make_room(self) -> bool:
        """Evict games until one more fits (finished ones first, then those idle for
        more than ``idle_after``, the oldest first); False if none may go."""
        excess = len(self._index) + 1 - self.max_games
        if excess <= 0:
            return True
        now = time.time()
        finished = sorted((t, g) for g, (over, t) in self._index.items() if over)
        idle = sorted(
            (t, g) for g, (over, t) in self._index.items() if not over and now - t > self.idle_after
        )
        for _, gid in (finished + idle)[:excess]:
            self._evict(gid)
        return len(self._index) < self.max_games

    def _evict(self, gid: str) -> None:
        self._index.pop(gid, None)
        self._games.pop(gid, None)
        self._locks.pop(gid, None)
        (self.directory / f"{gid}.json").unlink(missing_ok=True)


def _saved_over(path: Path) -> bool:
    """Whether the save at ``path`` is of a finished game (its envelope says so)."""
    try:
        ui = json.loads(path.read_text(encoding="utf-8")).get("ui")
    except (OSError, ValueError, AttributeError):
        return True  # unreadable: the first to go
    return bool(isinstance(ui, dict) and ui.get("over"))


class CreateLimit:
    """At most ``per_minute`` new games a minute from one client address."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        """Count one new game from ``client``.

        Raises:
            RequestError: 429 beyond the limit, saying when to try again.
        """
        now = time.monotonic()
        with self._lock:
            if len(self._times) > 10_000:  # bounded memory under a flood of addresses
                self._times = {k: v for k, v in self._times.items() if v and now - v[-1] < 60}
            q = self._times.setdefault(client, deque())
            while q and now - q[0] >= 60:
                q.popleft()
            if len(q) >= self.per_minute:
                wait = max(1, int(60 - (now - q[0])) + 1)
                raise RequestError(
                    429,
                    f"too many new games from this address: at most {self.per_minute} a "
                    f"minute; try again in {wait} s",
                )
            q.append(now)


async def _read_body(request: Request) -> bytes:
    """The body, refused from its declared length before reading, and read at most to
    :data:`MAX_BODY` (a larger one is refused when the limit is passed)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise RequestError(400, "Content-Length must be a whole number of bytes")
        if int(declared) > MAX_BODY:
            raise RequestError(413, f"the body is larger than {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(413, f"the body is larger than {MAX_BODY} bytes")
    return bytes(body)


async def _json_body(request: Request, keys: set[str]) -> dict[str, Any]:
    """The request's JSON object, checked: its type, size and keys."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise RequestError(415, "send the body as JSON (Content-Type: application/json)")
    body = await _read_body(request)
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
    if isinstance(data.get("seed"), str) and re.fullmatch(r"[0-9]{1,30}", data["seed"]):
        data = {**data, "seed": int(data["seed"])}  # digits as typed: exact past 2**53
    seed = _int_field(data, "seed", 0, 2**63 - 1)
    opts: dict[str, Any] = {
        "opponent": opponent,
        "seed": seed if seed is not None else secrets.randbelow(2**31),
    }
    money = data.get("money")
    if money is not None:
        low = MIN_MONEY[str(game)]
        if isinstance(money, bool) or not isinstance(money, int) or not low <= money <= MAX_MONEY:
            raise RequestError(
                400,
                f"starting money must be a whole number from {low} to {MAX_MONEY:,} in "
                f"{GAME_TITLES[str(game)]} (with less no hand can be played), not {money!r}",
            )
        opts["money"] = money
    if game == "draw":
        for key in ("players",):
            if data.get(key) is not None:
                raise RequestError(400, f"{key} is not an option of the draw (two players)")
        deck = data.get("deck", 52)
        if isinstance(deck, bool) or not isinstance(deck, int) or deck not in (32, 52):
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
    if opponent != "easy":
        option = TABLE_CHOICES[str(game)][0]
        value = opts.get(option, 52 if option == "deck" else (4 if game == "reddog" else 2))
        problem = table_problem(str(game), value)
        if problem is not None:
            raise RequestError(
                400,
                f"{opponent} needs a trained opponent for this table: {problem}; "
                f"{trained_summary()} (easy plays every table)",
            )
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


def _turn(session: Session) -> int:
    """How much has happened in the game: the length of its log (the same after a
    reload, which replays the log)."""
    return len(session.events)


def _answer(gid: str, session: Session, status: int = 200) -> JSONResponse:
    return JSONResponse(
        {"id": gid, "view": session.view(), "turn": _turn(session)}, status_code=status
    )


def _tables() -> dict[str, Any]:
    """What the start page offers: the levels, and for each game and deck or table size
    None where ``normal`` and ``hard`` play it, else why not."""
    return {
        "levels": list(LEVELS),
        "option": {g: opt for g, (opt, _) in TABLE_CHOICES.items()},
        "trained": {g: {str(v): why for v, why in t.items()} for g, t in trained_tables().items()},
        "summary": trained_summary(),
        "min_money": MIN_MONEY,
        "max_money": MAX_MONEY,
    }


def create_app(
    data_dir: Path | str,
    allowed_hosts: Sequence[str] | None = None,
    max_games: int = 1000,
    creates_per_minute: int = 30,
    idle_after: float = IDLE_AFTER,
) -> Starlette:
    """The app, its games saved under ``data_dir``.

    Args:
        data_dir: the folder of the saved games.
        allowed_hosts: the Host names answered (None: the loopback names).
        max_games: the most games kept on disk.
        creates_per_minute: the most new games a minute from one client address.
        idle_after: seconds without play after which a game may be evicted.
    """
    store = GameStore(Path(data_dir), max_games, idle_after)
    limit = CreateLimit(creates_per_minute)

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestError as exc:
                return JSONResponse({"error": exc.reason, **exc.extra}, status_code=exc.status)
            except Exception as exc:  # a bug: still JSON with a reason, never a traceback
                import traceback

                traceback.print_exc(file=sys.stderr)
                return JSONResponse(
                    {"error": f"the server failed ({type(exc).__name__}); nothing was changed"},
                    status_code=500,
                )

        return endpoint

    async def create(request: Request) -> Response:
        data = await _json_body(request, _CREATE_KEYS)
        game, opts = _create_options(data)
        limit.check(request.client.host if request.client else "?")

        def work() -> Response:
            try:
                gid, session = store.create(game, opts)
            except ConfigError as exc:
                raise RequestError(400, str(exc)) from None
            return _answer(gid, session, 201)

        return await run_in_threadpool(work)

    async def show(request: Request) -> Response:
        gid = request.path_params["gid"]

        def work() -> Response:
            with store.locked(gid):
                return _answer(gid, store.get(gid))

        return await run_in_threadpool(work)

    async def act(request: Request) -> Response:
        gid = request.path_params["gid"]
        data = await _json_body(request, _ACT_KEYS)
        button, amount, cards = _act_fields(data)
        turn = _int_field(data, "turn", 0, 2**62)

        def work() -> Response:
            with store.locked(gid):
                session = store.get(gid)
                if turn is not None and turn != _turn(session):
                    raise RequestError(
                        409,
                        "that was pressed on a screen the game had already left (a second "
                        "press, or another tab): nothing was done; this is the table now",
                        id=gid,
                        view=session.view(),
                        turn=_turn(session),
                    )
                try:
                    session.act(button, amount, cards)
                except InputError as exc:
                    # The game as it is now comes with the refusal: a stale tab resyncs.
                    raise RequestError(
                        409, str(exc), id=gid, view=session.view(), turn=_turn(session)
                    ) from None
                store.save(gid, session)
                return _answer(gid, session)

        return await run_in_threadpool(work)

    async def tables(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(_tables))

    async def start_page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def game_page(request: Request) -> Response:
        gid = request.path_params["gid"]

        def work() -> RequestError | None:
            # A replay after a restart runs here, off the event loop.
            try:
                with store.locked(gid):
                    store.get(gid)
            except RequestError as exc:
                return exc
            return None

        refused = await run_in_threadpool(work)
        if refused is None:
            return FileResponse(STATIC / "game.html")
        if refused.status == 404:
            return HTMLResponse(EXPIRED_PAGE, status_code=404)
        # A person opened the address: a page saying why, not the API's JSON.
        reason = html.escape(refused.reason[:1].upper() + refused.reason[1:] + ".")
        return HTMLResponse(BROKEN_PAGE.format(reason=reason), status_code=refused.status)

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

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
        Route("/favicon.ico", guarded(favicon)),
        Route("/game/{gid}", guarded(game_page)),
        Route("/api/tables", guarded(tables)),
        Route("/api/games", guarded(create), methods=["POST"]),
        Route("/api/games/{gid}", guarded(show)),
        Route("/api/games/{gid}/act", guarded(act), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{rest:path}", guarded(page_404)),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(_HostCheck, allowed_hosts=hosts),
            Middleware(SecurityHeaders),
        ],
        exception_handlers={HTTPException: _http_error},
    )
    app.state.store = store
    return app


def default_data_dir() -> Path:
    """Where the server keeps its games: ``$POKER_ENV_PLAY_DIR`` or ``~/.poker_env/games``."""
    env = os.environ.get("POKER_ENV_PLAY_DIR")
    return Path(env) if env else Path.home() / ".poker_env" / "games"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def host_settings(
    host: str, port: int, allow: Sequence[str] = ()
) -> tuple[list[str], str, str | None]:
    """The Host names answered, the address to open, and a warning (None on loopback)
    for serving on ``host``: port ``port``, ``allow`` more names to answer.

    On a loopback address only loopback names are answered. On any other address the
    game is open to the network without authentication: the warning says so plainly,
    and the Host check still answers only the loopback names, this machine's name and
    addresses, the address bound and the ``allow`` names (never any name at all).
    """
    names = list(LOOPBACK_HOSTS) + [a for a in allow if a]
    if _is_loopback(host):
        return names + ([host] if host not in names else []), f"http://localhost:{port}/", None
    wildcard = host.strip("[]") in ("0.0.0.0", "::", "")
    machine = socket.gethostname()
    extra = [machine, socket.getfqdn()]
    try:
        extra += socket.gethostbyname_ex(machine)[2]
    except OSError:
        pass
    if not wildcard:
        extra += [host.strip("[]"), _url_host(host)]
    for n in extra:
        if n and n not in names:
            names.append(n)
    shown = machine if wildcard else _url_host(host)
    warning = (
        f"WARNING: --host {host} opens the game to the network: anyone who can reach this "
        f"machine on port {port} can start and play games here, with no password or other "
        "authentication. Use the default 127.0.0.1 to play on this machine only. Host names "
        f"answered: {', '.join(names)} (add one with --allow-host NAME)."
    )
    return names, f"http://{shown}:{port}/", warning


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port number 1..65535, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port number 1..65535, got {port}")
    return port


def _folder(text: str) -> Path:
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a folder for the saved games")
    return path


def main(argv: Sequence[str] | None = None, prog: str = "poker-serve") -> int:
    """The ``poker-serve`` / ``poker-play web`` command: run the app with uvicorn."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Play against the computer in the browser. " + trained_summary() + ".",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port", type=_port, default=8000, help="port to listen on, 1..65535 (default 8000)"
    )
    p.add_argument(
        "--data",
        type=_folder,
        default=None,
        help="folder of the saved games (made if missing; default: the user's data folder)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another Host name to answer (off loopback), e.g. the name others type",
    )
    args = p.parse_args(argv)
    import uvicorn

    hosts, url, warning = host_settings(args.host, args.port, args.allow_host)
    app = create_app(args.data or default_data_dir(), allowed_hosts=hosts)
    if warning:
        print(warning, file=sys.stderr)
    print(f"Open {url} in a browser.")
    uvicorn.run(app, host=args.host.strip("[]"), port=args.port, log_level="warning")
    return 0
