"""Live data, process side: the lifespan's wiring of the live subsystem.

- `feed_wiring.py`: `open_live_data`, the change feed (`INSIGHT_CHANGE_FEED_URI`) and the
  stream readers that fill it, opened when subscriptions or the cache are on;
- `hub_wiring.py`: `open_subscriptions`, the hub (schema/live) on that feed, with its
  budgets, metrics and the Context of each re-read, when subscriptions are on.

The WebSocket transport that serves the subscriptions is `gateway/subscriptions/`. Each
part is imported from its own module: the hub's wiring reads the lifespan's resources
(gateway/state.py), which hold the live data, so the package re-exports neither.
"""

__all__: list[str] = []
