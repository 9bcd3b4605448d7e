"""`evidence eval`: retrieval quality on a BEIR-layout dataset through the real service code."""
