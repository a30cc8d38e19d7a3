"""Per-device token buckets (Adobe: one-time burst of 10 requests, then 1 request/second)."""

from __future__ import annotations

from dataclasses import dataclass

from .web import Request

THROTTLED_PREFIXES = ("/api/v2/", "/o/client/", "/api/v1/", "/reggie/v1/")

TOO_MANY_REQUESTS_HTML = (
    "<html><head><title>429 Too Many Requests</title></head><body><center>"
    "<h1>429 Too Many Requests</h1></center><hr><center>openresty</center></body></html>"
)


def device_key(req: Request) -> str:
    """AP-Device-Identifier if sent, else the first X-Forwarded-For address, else the peer IP."""
    identifier = req.header("AP-Device-Identifier")
    if identifier:
        return identifier
    forwarded = req.header("X-Forwarded-For")
    if forwarded and forwarded.split(",")[0].strip():
        return forwarded.split(",")[0].strip()
    return req.client_ip


@dataclass
class _Bucket:
    tokens: float
    updated_s: float


class TokenBuckets:
    def __init__(self, capacity: float = 10.0, refill_per_s: float = 1.0) -> None:
        self.capacity = capacity
        self.refill_per_s = refill_per_s
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, now_s: float) -> bool:
        """Spend one token of `key`'s bucket; False when it is empty."""
        bucket = self._buckets.setdefault(key, _Bucket(self.capacity, now_s))
        elapsed = max(0.0, now_s - bucket.updated_s)
        bucket.tokens = min(self.capacity, bucket.tokens + elapsed * self.refill_per_s)
        bucket.updated_s = now_s
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def clear(self) -> None:
        self._buckets.clear()
