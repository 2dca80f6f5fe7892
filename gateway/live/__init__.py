"""Live data, process side: the change feed and the stream readers, opened in the lifespan
when subscriptions or the cache are on (`open_live_data`)."""

from gateway.live.wiring import LiveData, open_live_data

__all__ = ["LiveData", "open_live_data"]
