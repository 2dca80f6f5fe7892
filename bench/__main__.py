from __future__ import annotations

import sys

if sys.argv[1:] == ["cache"]:
    from bench.cache_rows import main
elif sys.argv[1:] == ["writes"]:
    from bench.writes import main
elif sys.argv[1:] == ["hostile"]:
    from bench.hostile import main
else:
    from bench.run import main

main()
