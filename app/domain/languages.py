"""The languages this service analyses in their own words (issue 52), by ISO 639-1 code:
those fastembed's BM25 has a Snowball stemmer for and the `stop-words` package a list for —
Western European for now. Detection is app/models/languages.py.

A client's languages are counted where its BM25 statistics are (app/registry/bm25_stats.py):
each language a pseudo-term of its own — a negative id, which no hashed word has — whose
"document frequency" is the number of the client's current chunks in it. So they are added and
taken away with each version, in the same transaction, without a table of their own; a query
is analysed in each language the client holds (``LANGUAGE_TERMS``)."""

from __future__ import annotations

# ISO 639-1 code → the language's name as fastembed's BM25 and `stop-words` spell it
LANGUAGES = {"en": "english", "de": "german", "fr": "french", "es": "spanish",
             "it": "italian", "pt": "portuguese", "nl": "dutch"}
DEFAULT = "en"
# the pseudo-term counting a client's chunks in each language (never a word's id: those are
# non-negative hashes)
LANGUAGE_TERMS = {code: -(i + 1) for i, code in enumerate(LANGUAGES)}
TERM_LANGUAGES = {term: code for code, term in LANGUAGE_TERMS.items()}
# the languages each model knows: the dense model's weight falls for a query in another
# (app/search/stages.py), the NER model reads names in these only (ingest/entities.py)
DENSE_LANGUAGES = ("en",)  # all-MiniLM-L6-v2: trained on English
