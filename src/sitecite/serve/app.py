"""The ASGI app: the API, the widget, the demo pages, and the task that follows the index.

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

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from sitecite.config import Settings
from sitecite.errors import ConfigError
from sitecite.pipeline import Engine, answer
from sitecite.serve import api
from sitecite.serve.cors import CorsMiddleware
from sitecite.serve.errors import ApiError, install_error_handlers
from sitecite.serve.how import how_page
from sitecite.serve.limits import ClientAddress, RateLimiter
from sitecite.serve.live import LiveEngine
from sitecite.serve.pages import PAGE_HEADERS, home_page, lab_placeholder, site_page
from sitecite.serve.service import AnswerService, ServerState

log = logging.getLogger("sitecite.serve")

STATIC_DIR = Path(str(resources.files("sitecite.serve") / "static"))


def load_engine(index_dir: Path, settings: Settings) -> Engine:
    """The engine for serving: torch on `serve.torch_threads` threads, model warmed up."""
    serving = settings.model_copy(update={"torch_threads": settings.serve.torch_threads})
    engine = Engine.load(index_dir, serving)
    answer(engine, "warm up")
    return engine


def create_app(index_dir: str | Path, settings: Settings, engine: Engine | None = None) -> FastAPI:
    """The app for one index directory; pass `engine` to reuse one already loaded."""
    index_dir = Path(index_dir)
    try:
        client_address = ClientAddress(settings.serve.trusted_proxies, settings.serve.proxy_header)
    except ValueError as error:
        raise ConfigError(f"bad setting 'serve.trusted_proxies': {error}") from error
    live = LiveEngine(index_dir, engine or load_engine(index_dir, settings))
    service = AnswerService(live, settings.serve)
    state = ServerState(
        index_dir,
        settings,
        service,
        RateLimiter(settings.serve.rate_limit_per_minute),
        client_address,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        watcher = asyncio.create_task(_follow_index(service, settings.serve.index_poll_seconds))
        try:
            yield
        finally:
            watcher.cancel()
            service.close()

    app = FastAPI(
        title="sitecite",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="Answers questions about a site from its own pages, with citations, "
        "or says that the site does not say.",
    )
    app.state.sitecite = state
    install_error_handlers(app)
    app.include_router(api.router)
    _add_pages(app, state)
    app.add_middleware(CorsMiddleware, origins=settings.serve.cors_origins)
    return app


async def _follow_index(service: AnswerService, every_seconds: float) -> None:
    while True:
        await asyncio.sleep(every_seconds)
        try:
            await service.refresh_index()
        except Exception as error:  # the watcher must outlive any one bad rebuild
            log.error("following the index failed: %s", error, exc_info=error)


def _add_pages(app: FastAPI, state: ServerState) -> None:
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    def html(content: str) -> HTMLResponse:
        return HTMLResponse(content, headers=PAGE_HEADERS)

    @app.get("/widget.js", include_in_schema=False)
    async def widget() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "widget.js",
            media_type="text/javascript",
            headers={"Cache-Control": "public, max-age=300"},
        )

    @app.get("/", include_in_schema=False)
    async def home(request: Request) -> HTMLResponse:
        origin = str(request.base_url).rstrip("/")
        return html(home_page(state.service.live.current.engine.index, origin))

    @app.get("/how", include_in_schema=False)
    async def how() -> HTMLResponse:
        return html(how_page(state.service.live.current.engine))

    @app.get("/lab", include_in_schema=False)
    async def lab() -> Response:
        page, reason = await asyncio.get_running_loop().run_in_executor(
            None, _latest_lab, state.index_dir
        )
        if page is None:
            return html(lab_placeholder(state.index_dir, reason))
        return HTMLResponse(page, headers={"X-Content-Type-Options": "nosniff"})

    post_only = {
        route.path
        for route in api.router.routes
        if isinstance(route, APIRoute) and "GET" not in (route.methods or ())
    }

    @app.get("/{path:path}", include_in_schema=False)
    async def page(path: str) -> HTMLResponse:
        if "/" + path in post_only:  # the catch-all must not turn "wrong method" into "not found"
            raise ApiError(405, "method_not_allowed", f"/{path} takes POST", {"Allow": "POST"})
        content = site_page(state.service.live.current.engine.index, "/" + path)
        if content is None:
            raise ApiError(404, "not_found", f"nothing at /{path[:200]}")
        return html(content)


def _latest_lab(index_dir: Path) -> tuple[str | None, str]:
    """The lab page of the latest evaluation run, or None and why not."""
    try:
        from sitecite.eval.lab import latest_lab_html
    except ImportError:
        return None, ""
    try:
        return latest_lab_html(index_dir), ""
    except Exception as error:  # a broken run record must not take the page down
        log.error("rendering the lab page failed: %s", error, exc_info=error)
        return None, f"The latest run could not be shown: {error}"
