"""The ASGI app: the API, the widget, the demo pages, and the task that follows the index.

Starlette rather than FastAPI: the API checks its requests by hand (api.py) and describes them
in openapi.py, so FastAPI's binding would be unused, and its routing costs about five times
Starlette's per request, which is most of the cost of a cached answer.

`create_app` loads the model and the index once, before the server starts listening, and
answers one question to warm the model up, so the first visitor does not pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from sitecite.config import Settings
from sitecite.errors import ConfigError
from sitecite.owner.digest import DigestNotifier, follow_digests
from sitecite.pipeline import Engine, answer
from sitecite.serve import api
from sitecite.serve.cors import CorsMiddleware
from sitecite.serve.errors import EXCEPTION_HANDLERS, ApiError
from sitecite.serve.feedback import feedback
from sitecite.serve.how import how_page
from sitecite.serve.lab import NO_QUESTIONS, LabPage, lab_document
from sitecite.serve.limits import ClientAddress
from sitecite.serve.live import LiveEngine
from sitecite.serve.openapi import openapi_schema
from sitecite.serve.owner import OwnerLoop
from sitecite.serve.pages import PAGE_HEADERS, home_page, site_name, site_page
from sitecite.serve.service import AnswerService, ServerState
from sitecite.serve.shared import shared_state

log = logging.getLogger("sitecite.serve")

VERSION = "0.1.0"
STATIC_DIR = Path(str(resources.files("sitecite.serve") / "static"))
API_ROUTES = {
    "/api/ask": "POST",
    "/api/health": "GET",
    "/api/feedback": "POST",
    "/api/starters": "GET",
}


def load_engine(index_dir: Path, settings: Settings) -> Engine:
    """The engine for serving: the embedder on `torch_threads` threads and numpy's BLAS on one
    (on two cores a second BLAS thread made a 10k-section search 3x slower under load), model
    warmed up."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    engine = Engine.load(index_dir, settings)
    answer(engine, "warm up")
    return engine


def create_app(
    index_dir: str | Path, settings: Settings, engine: Engine | None = None
) -> Starlette:
    """The app for one index directory; pass `engine` to reuse one already loaded."""
    index_dir = Path(index_dir)
    try:
        client_address = ClientAddress(settings.serve.trusted_proxies, settings.serve.proxy_header)
    except ValueError as error:
        raise ConfigError(f"bad setting 'serve.trusted_proxies': {error}") from error
    shared = shared_state(settings.serve)
    owner = OwnerLoop.create(index_dir, settings)
    live = LiveEngine(index_dir, engine or load_engine(index_dir, settings))
    service = AnswerService(live, settings.serve, shared, owner.budget)
    state = ServerState(index_dir, settings, service, client_address, owner)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(_follow_index(service, settings.serve.index_poll_seconds))]
        if settings.serve.notify_url and owner.log_file is not None:
            notifier = DigestNotifier(
                settings.serve.notify_url, settings.serve.notify_hour, owner.log_file
            )
            tasks.append(asyncio.create_task(follow_digests(notifier, lambda: live.current.engine)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await service.close()
            owner.close()

    app = Starlette(
        routes=_routes(state),
        middleware=[Middleware(CorsMiddleware, origins=settings.serve.cors_origins)],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
    app.state.sitecite = state
    return app


async def _follow_index(service: AnswerService, every_seconds: float) -> None:
    while True:
        await asyncio.sleep(every_seconds)
        try:
            await service.refresh_index()
        except Exception as error:  # the watcher must outlive any one bad rebuild
            log.error("following the index failed: %s", error, exc_info=error)


def _routes(state: ServerState) -> list[BaseRoute]:
    schema = openapi_schema(state.settings.serve.max_question_chars, VERSION)

    def html(content: str) -> HTMLResponse:
        return HTMLResponse(content, headers=PAGE_HEADERS)

    async def openapi(_: Request) -> Response:
        return JSONResponse(schema)

    async def widget(_: Request) -> Response:
        return FileResponse(
            STATIC_DIR / "widget.js",
            media_type="text/javascript",
            headers={"Cache-Control": "public, max-age=300"},
        )

    async def favicon(_: Request) -> Response:  # for pages without a <link rel="icon">, e.g. /lab
        return FileResponse(
            STATIC_DIR / "favicon.svg",
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    async def home(request: Request) -> Response:
        origin = str(request.base_url).rstrip("/")
        return html(home_page(state.service.live.current.engine.index, origin))

    async def how(_: Request) -> Response:
        return html(how_page(state.service.live.current.engine, state.index_dir))

    lab_page = LabPage(state.index_dir)

    async def lab(request: Request) -> Response:
        await api.check_rate_limit(request, state, "lab")
        generation = state.service.live.current
        part, cached = await lab_page.page(generation.key)
        name = site_name(generation.engine.index)
        page = lab_document(part, await _visitors(state), name)
        headers = {**PAGE_HEADERS, "X-Sitecite-Cache": "hit" if cached else "miss"}
        return HTMLResponse(page, headers=headers)

    async def starters(_: Request) -> Response:
        generation = state.service.live.current
        questions = await state.owner.starters(generation.key, generation.engine)
        return JSONResponse({"questions": questions}, headers={"Cache-Control": "no-store"})

    async def site(request: Request) -> Response:
        path = "/" + request.path_params["path"]
        if path in API_ROUTES:  # the catch-all must not turn "wrong method" into "not found"
            method = API_ROUTES[path]
            raise ApiError(405, "method_not_allowed", f"{path} takes {method}", {"Allow": method})
        content = site_page(state.service.live.current.engine.index, path)
        if content is None:
            raise ApiError(404, "not_found", f"nothing at {path[:200]}")
        return html(content)

    return [
        Route("/api/ask", api.ask, methods=[API_ROUTES["/api/ask"]]),
        Route("/api/health", api.health, methods=[API_ROUTES["/api/health"]]),
        Route("/api/feedback", feedback, methods=[API_ROUTES["/api/feedback"]]),
        Route("/api/starters", starters, methods=[API_ROUTES["/api/starters"]]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/widget.js", widget, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Route("/", home, methods=["GET"]),
        Route("/how", how, methods=["GET"]),
        Route("/lab", lab, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        Route("/{path:path}", site, methods=["GET"]),
    ]


async def _visitors(state: ServerState) -> str:
    """The lab's section on visitors' questions: "" without a question log (or when it cannot
    be read: the log says why), a short note until the first question is logged."""
    from sitecite.owner.gaps_html import traffic_section

    try:
        report = await state.owner.traffic(state.service.live.current.engine)
    except Exception as error:  # a broken log must not take the page down
        log.error("reading the question log for the lab failed: %s", error, exc_info=error)
        return ""
    if report is None:
        return ""
    if not report.asked:
        return NO_QUESTIONS
    return traffic_section(report, state.owner.budget.state())
