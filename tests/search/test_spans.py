from app.search.spans import fold, literal_spans, query_terms


def test_spans_are_case_and_accent_insensitive_with_original_offsets() -> None:
    text = "A Configuração do PO-2231 e a configuracao nova"
    spans = literal_spans(text, query_terms("configuracao po-2231"))
    assert [(s["start"], s["end"], s["text"]) for s in spans] == [
        (2, 14, "Configuração"), (18, 20, "PO"), (21, 25, "2231"), (30, 42, "configuracao")]


def test_stopwords_and_single_letters_are_not_spans_but_digits_are() -> None:
    assert query_terms("what is the step 2 of a plan") == frozenset({"step", "2", "plan"})


def test_fold_keeps_length() -> None:
    for text in ("İstanbul", "Straße", "ÅÉÎ"):
        assert len(fold(text)) == len(text)


def test_query_syntax_is_just_words() -> None:
    assert query_terms('"budget" AND (report OR -x) 🚀') == frozenset({"budget", "report"})


def test_spans_are_exactly_the_words_equal_to_a_term_on_mixed_texts() -> None:
    """The definition, word by word (WORD tokens of the folded text that are terms), against
    the find-and-check-the-edges implementation, on seeded texts that mix scripts, accents,
    underscores, digits and terms inside longer words (``aa`` in ``aaa``, ``bone`` in
    ``bones_x``)."""
    import random

    from app.search.spans import WORD, fold

    def by_words(text: str, terms: frozenset[str]) -> list[dict]:
        return [{"start": m.start(), "end": m.end(), "text": text[m.start():m.end()]}
                for m in WORD.finditer(fold(text)) if m.group(0) in terms]

    words = ("the Configuração of vitamin D bone bones 12 fracture élan naïve İstanbul x "
             "data_set foo-bar aa aaa a_a ß ǅ 10,000").split()
    rng = random.Random(25)
    for _ in range(3000):
        text = " ".join(rng.choice(words) + rng.choice(["", ",", ".", "_x", "1", "aa", "\u0301"])
                        for _ in range(rng.randint(0, 30)))
        terms = query_terms(" ".join(rng.sample(words, 5)))
        assert literal_spans(text, terms) == by_words(text, terms), (text, terms)


def test_fold_keeps_every_offset_and_agrees_with_folding_character_by_character() -> None:
    """The fast path (lower-casing in C where nothing is left to strip) and the slow one fold
    the same: a final sigma stays σ as a lone Σ folds, İ keeps its base letter, accents go,
    and 20,000 random strings over the first 12k code points agree exactly."""
    import random

    from app.domain.textnorm import _fold_char, fold

    def slowly(text: str) -> str:
        return "".join(map(_fold_char, text))

    assert fold("ΣΑΣ") == "σασ" and fold("İstanbul") == "istanbul"
    assert fold("Configuração") == "configuracao" and fold("β-cell ≥ 5 µg") == "β-cell ≥ 5 µg"
    assert fold("e\u0301") == "e\u0301"  # already decomposed: the mark is a character
    chars = [chr(c) for c in range(0x20, 0x3000) if chr(c).isprintable()]
    rng = random.Random(46)
    for size in (1, 4, 40):
        for _ in range(20_000 // 3):
            text = "".join(rng.choice(chars) for _ in range(size))
            assert fold(text) == slowly(text) and len(fold(text)) == len(text)
