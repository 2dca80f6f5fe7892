"""`make bench` writes its rows into docs/performance.md between the markers, and nothing else."""

from __future__ import annotations

from pathlib import Path

from bench.report import PAGE, PAGE_BEGIN, PAGE_END, Row, write_page


def test_the_rows_replace_only_the_table_between_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    before = (
        f"# Performance\n\nprose before\n\n{PAGE_BEGIN}\n| old | table |\n{PAGE_END}\n\nafter\n"
    )
    page.write_text(before)
    rows = [
        Row("gateway", 10, [0.1, 0.3, 0.2], 0.6, 31, 1, 60.0),
        Row("trivial", 0, [0.002, 0.004], 0.008),
    ]

    write_page(rows, page)

    assert page.read_text() == (
        f"# Performance\n\nprose before\n\n{PAGE_BEGIN}\n"
        "| read | users | calls | trips | RCU | p50 ms | p99 ms | CPU ms | CPU/user |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| gateway | 10 | 31 | 1 | 60 | 200.0 | 300.0 | 200.00 | 20.00 |\n"
        "| trivial | - | - | - | - | 3.0 | 4.0 | 4.00 |  |\n"
        f"{PAGE_END}\n\nafter\n"
    )


def test_the_performance_page_has_the_markers() -> None:
    text = PAGE.read_text()

    assert text.index(PAGE_BEGIN) < text.index(PAGE_END)
