from __future__ import annotations

from gateway.app import create_app
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.lock import LockClient


async def test_the_lifespan_opens_one_lock_client_for_the_process(settings: Settings) -> None:
    app = create_app(settings)

    async with app.router.lifespan_context(app):
        locks = opened_resources(app).locks
        assert isinstance(locks, LockClient)
        assert locks.table_name == settings.tables.locks
        assert locks.lease_duration_text == "1m0s"
        assert len(locks.owner_name) == 52
