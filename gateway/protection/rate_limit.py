"""Per-principal budgets of cost points, counted by `limits`' moving window.

Each principal (the token's `sub`) has one budget per window, by role: `dashboard` and
`writer`, and end users (`INSIGHT_RATE_LIMIT_USER`), the tokens with neither; a principal
with both roles gets the more generous. A role's budget may be set below an end user's: a
token with a role never falls back on the end users' budget. An operation is charged its
cost (as the cost limit measures it, at least 1) before it executes; over budget, it is
refused and nothing is read.

The windows live in `INSIGHT_RATE_LIMIT_STORAGE_URI`: `memory://` (this process only) or
Redis, which every replica and worker shares. When the storage fails, the gateway keeps
answering (fail open, the default) or refuses with 503 (`INSIGHT_RATE_LIMIT_FAIL_OPEN=false`),
warns at most once a minute while it lasts, and counts each failure; the next call that
succeeds applies the budgets again (the Redis client reconnects by itself).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

import limits
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from gateway.protection.memory_windows import LoopMemoryStorage
from gateway.settings.requests import RequestSettings
from loaders.errors import GatewayError
from schema.principal import DASHBOARD, WRITER, Principal

logger = logging.getLogger("gateway.rate_limit")

USER = "user"
#: A Redis that does not answer within this costs a request no more than this.
STORAGE_TIMEOUT_SECONDS = 0.5
#: While the storage fails, one WARNING per this many seconds (with the count since the last).
WARNING_INTERVAL_SECONDS = 60.0
_NAMESPACE = "insight-budget"


class RateLimited(GatewayError):
    """The principal's budget of cost points is spent (HTTP 429, with Retry-After)."""

    code = "RATE_LIMITED"
    default_message = "Rate limit exceeded"

    def __init__(
        self, *, policy: str, limit: int, window_seconds: int, cost: int, retry_after: int
    ):
        if cost > limit:
            message = (
                f"This operation costs {cost} points, more than the whole {policy} budget of "
                f"{limit} per {window_seconds} s: it is never served to this principal"
            )
        else:
            message = (
                f"The {policy} budget of {limit} cost points per {window_seconds} s is spent "
                f"(this operation costs {cost}); retry in {retry_after} s"
            )
        super().__init__(
            message,
            extensions={
                "retryAfter": retry_after,
                "limit": {"policy": policy, "points": limit, "windowSeconds": window_seconds},
                "cost": cost,
            },
        )
        self.retry_after = retry_after


class RateLimitUnavailable(GatewayError):
    """The budgets' storage is unreachable and the gateway is set to fail closed (HTTP 503).

    The contract's codes have none for this: it is the gateway's own failure, so
    INTERNAL_SERVER_ERROR, with a message that says what to do and names no host."""

    code = "INTERNAL_SERVER_ERROR"
    default_message = "The rate limiter is unavailable; try again"


@dataclass(frozen=True, slots=True)
class Budget:
    """One role's budget: `points` cost points per `window_seconds`."""

    policy: str
    item: limits.RateLimitItem

    @property
    def points(self) -> int:
        return self.item.amount

    @property
    def window_seconds(self) -> int:
        return self.item.get_expiry()

    @property
    def rate(self) -> float:
        return self.points / self.window_seconds

    @classmethod
    def parse(cls, policy: str, text: str) -> Budget:
        """From `N/second`, `N/minute` or `N/hour` (as gateway/settings/ checked it)."""
        return cls(policy, limits.parse(text))


@dataclass(frozen=True, slots=True)
class Charge:
    """The outcome of charging one operation. `remaining` and `reset_seconds` are None when
    the storage failed and the operation was let through (fail open)."""

    budget: Budget
    cost: int
    allowed: bool
    remaining: int | None = None
    reset_seconds: int | None = None

    def refusal(self) -> RateLimited:
        return RateLimited(
            policy=self.budget.policy,
            limit=self.budget.points,
            window_seconds=self.budget.window_seconds,
            cost=self.cost,
            retry_after=self.retry_after,
        )

    @property
    def retry_after(self) -> int:
        """Whole seconds until the oldest charge in the window expires (at least 1): the
        earliest moment anything frees up; an operation dearer than the whole budget never
        fits, so it is told the whole window."""
        if self.cost > self.budget.points or self.reset_seconds is None:
            return self.budget.window_seconds
        return max(1, self.reset_seconds)


class StorageAlarm:
    """Counts every storage failure and warns about them at most once per interval."""

    def __init__(
        self,
        count: Callable[[], None],
        interval: float = WARNING_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.count = count
        self.interval = interval
        self.clock = clock
        self.failures = 0
        self._unreported = 0
        self._warned_at: float | None = None

    def failed(self, error: BaseException, fail_open: bool) -> None:
        self.count()
        self.failures += 1
        self._unreported += 1
        now = self.clock()
        if self._warned_at is None or now - self._warned_at >= self.interval:
            logger.warning(
                "rate-limit storage failed %d time(s) since the last warning (%r); %s",
                self._unreported,
                error,
                "answering without budgets" if fail_open else "refusing requests with 503",
            )
            self._warned_at = now
            self._unreported = 0

    def answered(self) -> None:
        if self.failures:
            logger.warning(
                "rate-limit storage answers again after %d failure(s); budgets apply",
                self.failures,
            )
            self.failures = 0
            self._unreported = 0
            self._warned_at = None


class Budgets:
    """The process's budgets: one moving-window limiter over the configured storage."""

    def __init__(
        self,
        *,
        user: Budget,
        dashboard: Budget,
        writer: Budget,
        storage_uri: str,
        fail_open: bool,
        count_storage_error: Callable[[], None] = lambda: None,
    ) -> None:
        self.user, self.dashboard, self.writer = user, dashboard, writer
        self.fail_open = fail_open
        self.storage = _storage(storage_uri)
        #: How long a charge may wait on the storage: the loop's own windows never wait.
        self.timeout = (
            None if isinstance(self.storage, LoopMemoryStorage) else STORAGE_TIMEOUT_SECONDS
        )
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.alarm = StorageAlarm(count_storage_error)

    @classmethod
    def from_settings(
        cls, settings: RequestSettings, count_storage_error: Callable[[], None] = lambda: None
    ) -> Budgets:
        return cls(
            user=Budget.parse(USER, settings.rate_limit_user),
            dashboard=Budget.parse(DASHBOARD, settings.rate_limit_dashboard),
            writer=Budget.parse(WRITER, settings.rate_limit_writer),
            storage_uri=settings.rate_limit_storage_uri,
            fail_open=settings.rate_limit_fail_open,
            count_storage_error=count_storage_error,
        )

    def budget_of(self, principal: Principal) -> Budget:
        """The most generous budget of the principal's roles; an end user's without one."""
        held = [
            budget
            for role, budget in ((DASHBOARD, self.dashboard), (WRITER, self.writer))
            if role in principal.roles
        ]
        return max(held, key=lambda budget: budget.rate) if held else self.user

    async def charge(self, principal: Principal, cost: int) -> Charge:
        """Take `cost` points from the principal's budget, if they are there."""
        budget = self.budget_of(principal)
        identity = (_NAMESPACE, principal.sub)
        try:
            async with asyncio.timeout(self.timeout):
                allowed = await self.limiter.hit(budget.item, *identity, cost=cost)
                stats = await self.limiter.get_window_stats(budget.item, *identity)
        except Exception as error:  # any storage failure: the policy below decides
            self.alarm.failed(error, self.fail_open)
            if not self.fail_open:
                raise RateLimitUnavailable() from error
            return Charge(budget, cost, allowed=True)
        self.alarm.answered()
        reset_seconds = max(0, math.ceil(stats.reset_time - time.time()))
        return Charge(budget, cost, allowed, max(0, stats.remaining), reset_seconds)


def _storage(uri: str) -> limits.storage.StorageTypes:
    if uri == "memory://":
        # limits' own, swept on the loop instead of a thread a key (memory_windows.py).
        return LoopMemoryStorage()
    # coredis, through `limits[async-redis]`; exceptions wrapped as limits' StorageError.
    return storage_from_string(
        f"async+{uri}",
        wrap_exceptions=True,
        connect_timeout=STORAGE_TIMEOUT_SECONDS,
        stream_timeout=STORAGE_TIMEOUT_SECONDS,
    )


# --- the charges of one HTTP request, for its headers ------------------------------------

_charges: ContextVar[list[Charge] | None] = ContextVar("budget_charges", default=None)


def start_charges() -> list[Charge]:
    """A fresh list that every operation of the current request adds its Charge to."""
    charges: list[Charge] = []
    _charges.set(charges)
    return charges


def record_charge(charge: Charge) -> None:
    charges = _charges.get()
    if charges is not None:
        charges.append(charge)
