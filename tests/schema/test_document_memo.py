"""The memo of figures per parsed document: hits by identity, bounded, never stale."""

from __future__ import annotations

import gc

import pytest
from graphql import parse

from schema.document_memo import DocumentMemo


def test_a_document_is_computed_once_per_key() -> None:
    memo: DocumentMemo[int] = DocumentMemo(maxsize=4)
    document = parse("{ a }")
    computed: list[str] = []

    def compute(label: str) -> int:
        computed.append(label)
        return len(computed)

    assert memo.get(document, "x", lambda: compute("x")) == 1
    assert memo.get(document, "x", lambda: compute("again")) == 1
    assert memo.get(document, "y", lambda: compute("y")) == 2
    assert computed == ["x", "y"]
    assert (memo.hits, memo.misses) == (1, 2)


def test_an_equal_document_parsed_again_is_not_taken_for_the_cached_one() -> None:
    memo: DocumentMemo[str] = DocumentMemo(maxsize=4)
    first, second = parse("{ a }"), parse("{ a }")
    assert memo.get(first, None, lambda: "first") == "first"
    assert memo.get(second, None, lambda: "second") == "second"


def test_a_dead_documents_entry_never_answers_for_a_new_one_at_its_address() -> None:
    memo: DocumentMemo[str] = DocumentMemo(maxsize=1000)
    answers = set()
    # CPython reuses a freed object's address at once: each new document lands where the
    # last one died, and must still be computed afresh.
    for n in range(50):
        document = parse(f"{{ f{n} }}")
        answers.add(memo.get(document, None, lambda n=n: f"f{n}"))  # type: ignore[misc]
        del document
        # The young generations only: the document is new, and a full pass over the whole
        # session's heap, fifty times, took minutes in the suite.
        gc.collect(1)
    assert len(answers) == 50
    assert memo.hits == 0


def test_the_least_recently_used_entry_goes_past_the_bound() -> None:
    memo: DocumentMemo[int] = DocumentMemo(maxsize=2)
    documents = [parse(f"{{ f{n} }}") for n in range(3)]
    memo.get(documents[0], None, lambda: 0)
    memo.get(documents[1], None, lambda: 1)
    memo.get(documents[0], None, lambda: -1)  # used: documents[1] is now the oldest
    memo.get(documents[2], None, lambda: 2)
    assert len(memo) == 2
    assert memo.get(documents[0], None, lambda: -1) == 0
    assert memo.get(documents[1], None, lambda: 11) == 11
    assert len(memo) == 2


def test_a_memo_keeps_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        DocumentMemo(maxsize=0)
