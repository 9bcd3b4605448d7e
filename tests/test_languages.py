"""Languages (issue 52), by their rules: a document's, a chunk's and a query's language on both
sides of each threshold; the dense weight's rule; another language's dates as entities."""

from __future__ import annotations

import pytest

from app.domain.entity_values import date_key, query_entity_keys
from app.domain.languages import LANGUAGE_TERMS, TERM_LANGUAGES
from app.models.languages import chunk_languages, document_language, query_language
from app.search.stages import dense_weight_for_language

GERMAN = ("Der Mietvertrag kann von beiden Parteien mit einer Frist von drei Monaten zum "
          "Quartalsende schriftlich gekündigt werden.")
ENGLISH = ("Either party may terminate the residential lease with three months' notice, given "
           "in writing before the end of a calendar quarter.")


@pytest.mark.parametrize("text, language", [
    (GERMAN, "de"), (ENGLISH, "en"),
    ("Le préavis de résiliation du bail est de trois mois, notifié par écrit.", "fr"),
    ("El plazo de preaviso del contrato de arrendamiento es de tres meses.", "es"),
    ("12345 67890 0.5 1.25 %", "en"),  # nothing to tell by: English, what the models cover
    ("Contact: Daniel Okafor · IBAN: DE89370400440532013000 · Debit (EUR): 48500", "en"),
    ("Kündigung zum Quartalsende wegen Eigenbedarfs.", "en"),  # under 12 words: too few
    ("", "en"),
])
def test_a_documents_language(text: str, language: str) -> None:
    assert document_language(text) == language


def test_a_chunk_keeps_its_documents_language_unless_it_is_surely_another() -> None:
    short_german = "Kündigung zum Quartalsende."  # under 12 words: the document's
    assert chunk_languages([GERMAN, short_german, ENGLISH], "en") == ["de", "en", "en"]
    assert chunk_languages([ENGLISH], "de") == ["en"]
    # a sentence of Latin-looking names in an English document stays English
    latin = ("Escherichia coli and Saccharomyces cerevisiae were grown in Luria broth medium "
             "with Bacillus subtilis and Lactobacillus acidophilus strains overnight.")
    assert chunk_languages([latin], "en") == ["en"]


@pytest.mark.parametrize("query, language", [
    ("Kündigung", "de"), ("Kündigungsfrist des Mietvertrags", "de"),
    ("préavis de résiliation", "fr"), ("mitochondrial DNA replication", None),
    ("termination notice", None), ("the notice period for terminating a lease", "en"),
])
def test_a_querys_language_only_where_sure(query: str, language: str | None) -> None:
    assert query_language(query) == language


@pytest.mark.parametrize("language, asked, expected", [
    ("de", False, (0.125, True)), ("en", False, (0.5, False)), (None, False, (0.5, False)),
    ("de", True, (0.5, False)),  # an alpha the request named is the caller's
])
def test_the_dense_weight_falls_for_a_language_the_model_does_not_know(
        language: str | None, asked: bool, expected: tuple[float, bool]) -> None:
    alpha, reason = dense_weight_for_language(0.5, language, 0.25, asked=asked)
    assert (alpha, reason is not None) == expected
    if reason:
        assert "de" in reason and "0.5 × 0.25 = 0.125" in reason


def test_languages_are_counted_as_pseudo_terms_no_word_can_be() -> None:
    assert all(term < 0 for term in LANGUAGE_TERMS.values())
    assert TERM_LANGUAGES[LANGUAGE_TERMS["de"]] == "de"


@pytest.mark.parametrize("written, key", [
    ("1. Juni 2024", "date:2024-06-01"), ("1er juin 2024", "date:2024-06-01"),
    ("1 de junio de 2024", "date:2024-06-01"), ("12 de março de 2024", "date:2024-03-12"),
    ("3 maart 2024", "date:2024-03-03"), ("15 mrt. 2024", "date:2024-03-15"),
    ("31. Februar 2024", None),  # no such day
    ("Juni 2024", None),  # no day: no date
])
def test_another_languages_day_is_a_date(written: str, key: str | None) -> None:
    assert date_key(written) == key
    assert query_entity_keys(f"Zahlung am {written}") == ([key] if key else [])
