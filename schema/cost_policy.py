"""What each field of the gateway's schema costs the tables (see schema/extensions)."""

from __future__ import annotations

from schema.extensions import CostPolicy

__all__ = ["GATEWAY_COST_POLICY"]

# Every User field but `id` is at least one DynamoDB read (a point read, or one Query that
# returns up to `limit`/`months` items), and every mutation at least one write. Declared
# by type so that a field added later is counted without touching this table.
GATEWAY_COST_POLICY = CostPolicy(
    type_costs={"User": 1, "Mutation": 1},
    field_costs={"User.id": 0},
    # A subgraph's `_entities` (INSIGHT_FEDERATION) reads one User per representation, as
    # `users` one per id, so the representations multiply the cost as the ids do.
    multiplier_arguments=frozenset({"ids", "limit", "months", "representations"}),
)
