"""The suite's fault proxy (support/faults.py) as a process of its own, throttling a share of
every DynamoDB read and write call (400 ProvisionedThroughputExceededException, retried by
botocore like the real one), so that proxying does not load the driver's event loop.

    python -m bench.load.throttle_proxy UPSTREAM SHARE

Prints its port on its first line; exits when its standard input closes.
"""

from __future__ import annotations

import asyncio
import random
import sys

from support.faults import Throttle, fault_proxy

OPERATIONS = ("BatchGetItem", "Query", "GetItem", "PutItem", "UpdateItem", "DeleteItem")


async def serve(upstream: str, share: float) -> None:
    rng = random.Random(3)
    async with fault_proxy(upstream) as proxy:
        for operation in OPERATIONS:
            proxy.inject(
                operation, Throttle(), times=10**9, when=lambda _body: rng.random() < share
            )
        print(proxy.endpoint_url.rsplit(":", 1)[1], flush=True)
        loop = asyncio.get_running_loop()
        # Until the parent closes our stdin (it ended, or died).
        await loop.run_in_executor(None, sys.stdin.read)
        print(dict(proxy.injected), file=sys.stderr, flush=True)


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], float(sys.argv[2])))
