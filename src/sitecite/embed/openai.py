"""Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp server...)."""

from __future__ import annotations

import httpx
import numpy as np

from sitecite.config import check_base_url
from sitecite.embed.base import Embedder
from sitecite.errors import EmbedError


class OpenAIEmbedder(Embedder):
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        base_url = check_base_url(base_url, "embedder_base_url")
        self.id = f"openai:{model}@{base_url}"
        self.model = model
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.dim = len(self.embed_batch(["dimension probe"])[0])

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        try:
            response = self.client.post("/embeddings", json={"model": self.model, "input": texts})
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda item: item["index"])
            return np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (httpx.HTTPError, KeyError, ValueError, TypeError) as exc:
            raise EmbedError(f"embedding endpoint {self.client.base_url} failed: {exc}") from exc
