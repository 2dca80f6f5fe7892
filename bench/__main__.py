from __future__ import annotations

import sys

if sys.argv[1:] == ["cache"]:
    from bench.cache_rows import main
elif sys.argv[1:] == ["writes"]:
    from bench.writes import main
elif sys.argv[1:] == ["calls"]:
    from bench.call_cost import main
elif sys.argv[1:] == ["items"]:
    from bench.item_cost import main
elif sys.argv[1:] == ["peer"]:
    from bench.peer import main
elif sys.argv[1:] == ["hostile"]:
    from bench.hostile import main
elif sys.argv[1:] == ["requests"]:
    from bench.request_cpu import main
elif sys.argv[1:2] == ["completion"]:  # with its own options
    from bench.completion import main
else:
    from bench.run import main

main()
if not sys.argv[1:]:
    # The whole of `make bench` ends with the mutations' rows, over a moto server of their
    # own (under a minute): bench/writes.py.
    from bench.writes import main as writes

    writes()
