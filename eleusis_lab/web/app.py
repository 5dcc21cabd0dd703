"""The study's web app (`make_app`): server-rendered pages, Starlette under uvicorn,
no build step. Every page works without JavaScript (plain forms); a few lines of it
(``static/study.js``) check a rule as it is typed (``POST /check``), build a New
Eleusis string from the cards clicked, and measure the response time in the browser.

The pages, in the order a participant meets them::

    GET  /              the start page: the study, the consent form (the id read from
                        the address, e.g. ?PROLIFIC_PID=...)
    POST /consent       consent given (or not): numbered, dealt, to the instructions
    GET  /instructions  the instructions and the rule language
    GET  /play          the current game's decision, or the result of a finished game
    POST /play          an answer: a card, and in solo the rule, confidence, declaration;
                        Delphi's probability; New Eleusis' cards in order or no play,
                        the Prophet's yes or no, his call right or wrong
    POST /next          on to the next game after a result
    GET  /done          the completion code
    POST /check         is this text a rule? (JSON: ok, message, line, column, English)

What the app takes from a request: the id (checked against a pattern, hashed), form
fields read as text, a card matched against the cards the seat may play (a string
too), a probability read as a number in [0, 1], a rule text
handed to the parser alone (`eleusis_lab.web.checker`). No path, module, agent or file
name is ever read from a request. The session is a signed cookie (Starlette's
``SessionMiddleware``, itsdangerous) holding the participant's number and a token every
form must carry back; bodies are bounded, requests paced (`eleusis_lab.web.limits`).
The secret rule is in no page and no answer: pages are made from what the seat sees.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from eleusis_agents.rule_language import rule_language
from eleusis_lab.web.checker import check_rule
from eleusis_lab.web.flow import StudyFlow
from eleusis_lab.web.page import game_page, result_page
from eleusis_lab.web.seat import Diverged
from eleusis_lab.web.study import Study

__all__ = ["COOKIE", "Limits", "make_app"]

#: The session cookie's name.
COOKIE = "eleusis_study"
_HERE = files("eleusis_lab.web")
_FORM = {"max_files": 0, "max_fields": 16}


@dataclass(frozen=True)
class Limits:
    """What the app allows a client.

    Attributes
    ----------
    body : int
        The largest request body, in bytes (a form is well under 1 KiB).
    session, address : (float, float)
        Token buckets, (burst, per second), per session and per client address.
    max_age : int
        Seconds a session lasts without a visit (a participant who returns later is
        known again by his id).
    """

    body: int = 4096
    session: tuple[float, float] = (30.0, 5.0)
    address: tuple[float, float] = (300.0, 50.0)
    max_age: int = 14 * 24 * 3600


def _paragraphs(text: str) -> list[str]:
    return [part.strip() for part in text.split("\n\n") if part.strip()]


def make_app(
    study: Study, out: str | Path, limits: Limits | None = None, https_only: bool = False
) -> Starlette:
    """The study's app, writing into ``out`` (its database, secrets, results: see
    `eleusis_lab.web.flow.StudyFlow`). The folder is held (locked) from now until the
    app's lifespan ends (or ``app.state.flow.close()``)."""
    limits = limits or Limits()
    flow = StudyFlow(study, out)
    environment = Environment(
        loader=FileSystemLoader(str(_HERE.joinpath("templates"))),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    templates = Jinja2Templates(env=environment)
    language = rule_language().splitlines()
    plays_solo = any(
        deal.game_type == "solo"
        for deal in [study.practice, *(b.deals[0] for b in study.blocks)]
        if deal is not None
    )

    def render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.update(
            study=study,
            csrf=_csrf(request),
            language=language,
            plays_solo=plays_solo,
            paragraphs=_paragraphs,
        )
        return templates.TemplateResponse(request, name, context, status_code=status)

    def error(request: Request, status: int, message: str) -> Response:
        return render(request, "error.html", status=status, message=message, code=status)

    def participant(request: Request) -> int | None:
        number = request.session.get("p")
        if not isinstance(number, int) or flow.store.participant_number(number) is None:
            request.session.pop("p", None)
            return None
        return number

    async def form_of(request: Request) -> dict[str, str]:
        """The posted fields as text; 403 without the session's token."""
        form = await request.form(**_FORM)
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        token = request.session.get("csrf")
        if not token or not hmac.compare_digest(str(token), fields.get("csrf", "")):
            raise HTTPException(403, "this page has expired: go back to the study's address")
        return fields

    async def start(request: Request) -> Response:
        query = dict(request.query_params)
        named = any(param in query for param in study.id_params)
        number = participant(request)
        if number is not None and not named:
            return RedirectResponse("/play", 303)
        try:
            found = flow.identify(query)
        except ValueError as problem:
            return error(request, 400, f"{problem}: open the study from the link you were given")
        if found is None:
            return error(
                request, 400, "open the study from the link you were given (it carries your id)"
            )
        id_hash, param = found
        known = await run_in_threadpool(flow.known, id_hash)
        if known is not None:
            request.session["p"] = known
            return RedirectResponse("/play", 303)
        request.session.pop("p", None)
        request.session["pending"] = [id_hash, param]
        return render(request, "start.html")

    async def consent(request: Request) -> Response:
        fields = await form_of(request)
        pending = request.session.get("pending")
        if not (isinstance(pending, list) and len(pending) == 2):
            return RedirectResponse("/", 303)
        if fields.get("consent") != "yes":
            request.session.clear()
            return render(request, "declined.html")
        number = await run_in_threadpool(flow.consent, *map(str, pending))
        if number is None:
            request.session.clear()
            return render(request, "full.html")
        request.session.pop("pending", None)
        request.session["p"] = number
        return RedirectResponse("/instructions", 303)

    async def instructions(request: Request) -> Response:
        if participant(request) is None:
            return RedirectResponse("/", 303)
        return render(request, "instructions.html")

    async def show(request: Request, number: int, message: str | None = None, typed=None):
        current = await run_in_threadpool(flow.current, number)
        if current is None:
            return RedirectResponse("/done", 303)
        where = {"index": current.index, "total": current.total, "deal": current.deal}
        if current.position.over:
            page = result_page(current.deal, current.position.record, current.answers)
            return render(request, "result.html", game=page, where=where, id=current.row["id"])
        await run_in_threadpool(flow.shown, current)
        page = game_page(current.deal, current.position.ask, current.answers)
        return render(
            request,
            "game.html",
            status=200 if message is None else 422,
            game=page,
            where=where,
            message=message,
            typed=typed or {},
        )

    async def play(request: Request) -> Response:
        number = participant(request)
        if number is None:
            return RedirectResponse("/", 303)
        return await show(request, number)

    async def answer(request: Request) -> Response:
        number = participant(request)
        if number is None:
            return RedirectResponse("/", 303)
        fields = await form_of(request)
        decision = fields.get("number", "")
        if not decision.isdigit() or len(decision) > 6:
            raise HTTPException(400, "this answer names no decision")
        message = await run_in_threadpool(flow.answer, number, int(decision), fields)
        if message is not None:
            return await show(request, number, message, fields)
        return RedirectResponse("/play", 303)

    async def next_game(request: Request) -> Response:
        number = participant(request)
        if number is None:
            return RedirectResponse("/", 303)
        fields = await form_of(request)
        game = fields.get("game", "")
        if game.isdigit() and len(game) < 12:
            await run_in_threadpool(flow.acknowledge, number, int(game))
        return RedirectResponse("/play", 303)

    async def done(request: Request) -> Response:
        number = participant(request)
        if number is None:
            return RedirectResponse("/", 303)
        if await run_in_threadpool(flow.current, number) is not None:
            return RedirectResponse("/play", 303)
        return render(request, "done.html")

    async def check(request: Request) -> Response:
        fields = await form_of(request)
        return JSONResponse(check_rule(fields.get("text", "")[:2000]).to_dict())

    async def http_error(request: Request, problem: Exception) -> Response:
        status = getattr(problem, "status_code", 500)
        detail = getattr(problem, "detail", "") or "something went wrong"
        if request.url.path == "/check":
            return JSONResponse({"ok": False, "message": detail}, status_code=status)
        return error(request, status, detail)

    async def server_error(request: Request, problem: Exception) -> Response:
        if isinstance(problem, Diverged):
            message = "this game cannot be resumed; please tell the researchers"
        else:
            message = "something went wrong on our side; please reload the page"
        print(f"eleusis-lab serve: {type(problem).__name__}: {problem}", file=sys.stderr)
        try:
            return error(request, 500, message)
        except Exception:  # the page itself failed: plain words
            return HTMLResponse(f"<p>{message}</p>", status_code=500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            flow.close()

    from eleusis_lab.web.limits import BodyLimit, RateLimit, SecurityHeaders

    app = Starlette(
        routes=[
            Route("/", start),
            Route("/consent", consent, methods=["POST"]),
            Route("/instructions", instructions),
            Route("/play", play),
            Route("/play", answer, methods=["POST"]),
            Route("/next", next_game, methods=["POST"]),
            Route("/done", done),
            Route("/check", check, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(_HERE.joinpath("static"))), name="static"),
        ],
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(BodyLimit, max_bytes=limits.body),
            Middleware(RateLimit, session=limits.session, address=limits.address, cookie=COOKIE),
            Middleware(
                SessionMiddleware,
                secret_key=flow.key,
                session_cookie=COOKIE,
                max_age=limits.max_age,
                same_site="lax",
                https_only=https_only,
            ),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.state.flow = flow
    return app


def _csrf(request: Request) -> str:
    """The session's token for its forms (made on first use)."""
    if "session" not in request.scope:
        return ""
    token = request.session.get("csrf")
    if not isinstance(token, str):
        token = request.session["csrf"] = secrets.token_urlsafe(24)
    return token
