"""Abuse limits: a per-address token bucket, and who the client is.

The bucket holds a minute's worth of questions and refills continuously, so a visitor may ask
a burst of `per_minute` questions and then one every `60 / per_minute` seconds. The client
address is the socket peer; a forwarding header is believed only when that peer is one of the
configured trusted proxies, and then only the right-most untrusted entry of it (the left part
of X-Forwarded-For is whatever the client chose to send).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Verdict:
    """Whether one request may go ahead; if not, how many whole seconds until it may."""

    allowed: bool
    remaining: int
    retry_after: int = 0


class RateLimiter:
    """Token buckets keyed by client address, at most `max_clients` of them (oldest dropped).

    Not thread-safe on purpose: it is only touched from the event loop.
    """

    def __init__(
        self,
        per_minute: float,
        max_clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = float(per_minute)
        self.per_second = per_minute / 60.0
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return self.capacity > 0

    def take(self, client: str) -> Verdict:
        """Spend one token of `client`'s bucket if there is one."""
        if not self.enabled:
            return Verdict(True, 0)
        now = self.clock()
        tokens, last = self._buckets.pop(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - last) * self.per_second)
        allowed = tokens >= 1.0 - 1e-9  # tolerate float error: Retry-After must be enough
        if allowed:
            tokens = max(0.0, tokens - 1.0)
        self._buckets[client] = (tokens, now)
        if len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return verdict(allowed, tokens, self.per_second)


def verdict(allowed: bool, tokens: float, per_second: float) -> Verdict:
    """The verdict for a bucket left with `tokens`; shared by the in-process and Redis buckets."""
    if allowed:
        return Verdict(True, int(tokens))
    # The next token arrives when the bucket has refilled to exactly 1; round up so a client
    # that waits Retry-After seconds is always let in.
    return Verdict(False, 0, max(1, math.ceil((1.0 - tokens) / per_second)))


class ClientAddress:
    """Decides the client address of a request from its socket peer and, maybe, a header."""

    def __init__(self, trusted_proxies: Iterable[str], header: str) -> None:
        self.trusted: tuple[Network, ...] = tuple(
            ipaddress.ip_network(entry.strip(), strict=False) for entry in trusted_proxies
        )
        self.header = header.lower().encode("latin-1")

    def _is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def resolve(self, peer: str, headers: Iterable[tuple[bytes, bytes]]) -> str:
        """The address to rate-limit: the peer, unless a trusted proxy says who it forwards."""
        if not self.trusted or not self._is_trusted(peer):
            return peer
        values = [value.decode("latin-1") for name, value in headers if name.lower() == self.header]
        hops = [hop.strip() for value in values for hop in value.split(",") if hop.strip()]
        for hop in reversed(hops):
            address = _strip_port(hop)
            if not self._is_trusted(address):
                return address if _is_ip(address) else peer
        return peer


def _strip_port(hop: str) -> str:
    if hop.startswith("["):  # "[2001:db8::1]:443"
        return hop[1:].split("]", 1)[0]
    if hop.count(":") == 1:  # "203.0.113.7:5040"
        return hop.split(":", 1)[0]
    return hop


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
