"""Every command's --help at 80 columns, as a newcomer reads it (issue 53 item 6): Typer's rich
panels cut a long default or example to fit their column ("./data/eval/<datas…"); click's
own help wraps it whole. No line wider than 80, every option's help text there in full."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from app import cli


def _commands() -> list[tuple[list[str], Any]]:
    root = typer.main.get_command(cli.app)
    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        found.append((path, command))
        if hasattr(command, "commands"):  # a group (Typer's own click)
            for name, sub in command.commands.items():
                walk([*path, name], sub)

    walk([], root)
    return found


COMMANDS = _commands()


def test_every_command_is_walked() -> None:
    assert len(COMMANDS) > 40  # the tree, not only the root


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) or "evidence"
                                                         for p, _ in COMMANDS])
def test_help_fits_80_columns_and_cuts_nothing(path: list[str],
                                               command: Any) -> None:
    result = CliRunner().invoke(cli.app, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines), [x for x in lines if len(x) > 80]
    assert not any(line != line.rstrip() for line in lines)  # no padding to the width
    flat = " ".join(result.output.split())
    for param in command.params:
        text = " ".join((getattr(param, "help", None) or "").split())
        assert text in flat, (param.name, text)
