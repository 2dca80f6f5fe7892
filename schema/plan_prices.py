"""What a plan of reads costs, in dollars: the read units it consumes at DynamoDB's price,
plus the CPU the gateway spends on its calls and items at a vCPU's price.

The access plan (`schema.access_plan`) prices each candidate for one user with the `Prices`
its schema's `PreparedOperations` holds (the gateway's settings `INSIGHT_PRICE_READ_UNIT`
and `INSIGHT_PRICE_VCPU_HOUR`; these defaults otherwise) and reads the cheaper. The CPU is
estimated from the constants below, measured by the bench (docs/performance.md, "The access
plan's prices").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "KEYS_PER_BATCH",
    "PRICES",
    "READ_UNIT_PRICE",
    "VCPU_HOUR_PRICE",
    "PlanCost",
    "Prices",
]

#: Dollars per million read units: DynamoDB on-demand, us-east-1, since the 1 November 2024
#: price cut (https://aws.amazon.com/dynamodb/pricing/on-demand/). An eventually
#: consistent read of up to 4 KB is half a read request unit; the units the access plan
#: counts (ConsumedCapacity, eventually consistent) are already those halves.
READ_UNIT_PRICE = 0.125
#: Dollars per vCPU-hour: AWS Fargate on-demand, Linux/x86, us-east-1
#: (https://aws.amazon.com/fargate/pricing/), where a replica of the gateway runs.
VCPU_HOUR_PRICE = 0.04048

# The CPU estimate's constants, measured on the shared two-core box (docs/performance.md,
# "The access plan's prices", has every run). `python -m bench items` runs the frontend
# query and a full User in process over dynalite under each plan in alternating turns.
#: A DynamoDB call's CPU, sent beside the request's other calls: the median of 70-410 µs in
#: a request (`python -m bench items`, from the full User's 3 extra Queries by prefix: the
#: least sure figure); one call at a time it is 536-836 µs (`python -m bench calls`, the
#: lean row), whose event-loop wake-ups a request's concurrent calls share.
CALL_CPU_SECONDS = 170e-6
#: An item in an answer, not decoded: its bytes through aiohttp, orjson, the collection's
#: index, the allocator and the collector. 13-30 µs in a request, median 20 (`python -m
#: bench items`: the frontend query sends the same 3 calls under either plan, and the
#: collection reads 60 more items); orjson alone parses one in ~2 µs.
ITEM_READ_CPU_SECONDS = 20e-6
#: An item decoded from its wire form (`loaders.codec.from_wire`): 2.0-3.4 µs in isolation
#: (`python -m bench items`). The collection decodes only the items whose rows a rule builds.
ITEM_DECODE_CPU_SECONDS = 2.2e-6
#: A BatchGetItem carries up to 100 keys: a point read costs a hundredth of its call (the
#: request sends that call anyway for the reads outside the partition).
KEYS_PER_BATCH = 100


@dataclass(frozen=True, slots=True)
class PlanCost:
    """What one candidate plan reads for one user: read units, DynamoDB calls (a point read
    a share of one), items in the answers and items decoded."""

    units: float = 0.0
    calls: float = 0.0
    items_read: float = 0.0
    items_decoded: float = 0.0

    def __add__(self, other: PlanCost) -> PlanCost:
        return PlanCost(
            self.units + other.units,
            self.calls + other.calls,
            self.items_read + other.items_read,
            self.items_decoded + other.items_decoded,
        )

    def times(self, count: int) -> PlanCost:
        return PlanCost(
            self.units * count,
            self.calls * count,
            self.items_read * count,
            self.items_decoded * count,
        )

    @property
    def cpu_seconds(self) -> float:
        """The gateway's CPU for these reads, estimated from the bench's constants."""
        return (
            self.calls * CALL_CPU_SECONDS
            + self.items_read * ITEM_READ_CPU_SECONDS
            + self.items_decoded * ITEM_DECODE_CPU_SECONDS
        )


@dataclass(frozen=True, slots=True)
class Prices:
    """The price of a read unit (dollars per million) and of a vCPU (dollars per hour)."""

    read_unit: float = READ_UNIT_PRICE
    vcpu_hour: float = VCPU_HOUR_PRICE

    def __post_init__(self) -> None:
        for name, value in (("read_unit", self.read_unit), ("vcpu_hour", self.vcpu_hour)):
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"the {name} price must be a finite number ≥ 0, not {value}")
        if self.read_unit == 0 and self.vcpu_hour == 0:
            raise ValueError("at least one of the read unit's and the vCPU's prices is above 0")

    def dollars(self, cost: PlanCost) -> float:
        """The price of `cost`, in dollars."""
        return cost.units * self.read_unit / 1e6 + cost.cpu_seconds * self.vcpu_hour / 3600


#: Today's prices (the defaults above).
PRICES = Prices()
