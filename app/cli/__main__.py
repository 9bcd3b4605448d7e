"""`python -m app.cli`: the `evidence` command."""

from app.cli import main

main()
