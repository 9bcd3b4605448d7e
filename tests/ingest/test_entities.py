from ingest.entities import EntityExtractor, rule_entities


def test_rules_find_identifiers_account_types_and_money() -> None:
    found = rule_entities("Paid $10,000 from checking account ACCT-998877 (TXN-2024-001); "
                          "the savings accounts hold 5 EUR.")
    assert found == {"account_numbers": ["ACCT-998877"],
                     "transaction_references": ["TXN-2024-001"],
                     "monetary_amounts": ["$10,000", "5 EUR"],
                     "account_types": ["checking", "savings"]}


def test_spacy_groups_with_rules_winning_overlaps(real_models) -> None:  # type: ignore[no-untyped-def]
    extractor = EntityExtractor(real_models.spacy_path)
    [found] = extractor.extract(["Geoffrey Hinton met Microsoft in Seattle on January 15, 2024 "
                                 "about transaction TXN-2024-001 worth $10,000."])
    assert found["persons"] == ["Geoffrey Hinton"]
    assert found["organizations"] == ["Microsoft"]
    assert found["locations"] == ["Seattle"]
    assert "January 15, 2024" in found["dates_times"]
    assert "TXN-2024-001" not in found["dates_times"]
    assert found["monetary_amounts"] == ["$10,000"]
