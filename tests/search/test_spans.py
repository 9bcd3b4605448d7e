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
