"""Plain text and Markdown, keeping line numbers and (for Markdown) the heading path."""

from __future__ import annotations

from markdown_it import MarkdownIt

from ingest.extract.reflow import reflow_text
from ingest.extract.types import Block, ExtractedText, decode_text

# Markdown elements whose wrapped lines are one paragraph (ingest/extract/reflow.py); code,
# tables and HTML keep their lines as written
REFLOWED = frozenset({"paragraph_open", "bullet_list_open", "ordered_list_open",
                      "blockquote_open"})


def extract_text(content: bytes, filename: str) -> ExtractedText:
    """One block per paragraph (blank-line separated), its wrapped lines joined
    (ingest/extract/reflow.py), with its 1-based line range."""
    warnings: list[str] = []
    lines = decode_text(content, warnings).splitlines()
    blocks: list[Block] = []
    start: int | None = None
    for number, line in enumerate(lines + [""], start=1):
        if line.strip() and start is None:
            start = number
        elif not line.strip() and start is not None:
            blocks.append(Block(text=reflow_text("\n".join(lines[start - 1:number - 1])).strip(),
                                line_start=start, line_end=number - 1))
            start = None
    return ExtractedText(blocks=blocks, title=None, warnings=warnings)


def extract_markdown(content: bytes, filename: str) -> ExtractedText:
    """Blocks per top-level Markdown element (markdown-it's token line maps), under their headings.

    Text is the source lines themselves, so what a chunk cites is what the file says — a
    paragraph's wrapped lines joined (ingest/extract/reflow.py), code and tables as written.
    """
    warnings: list[str] = []
    source = decode_text(content, warnings)
    lines = source.splitlines()
    tokens = MarkdownIt("commonmark").enable("table").parse(source)
    headings: list[tuple[int, str]] = []
    blocks: list[Block] = []
    title = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            level = int(token.tag[1])
            text = tokens[i + 1].content.strip()
            headings = [h for h in headings if h[0] < level] + [(level, text)]
            if title is None and level == 1:
                title = text
            i += 3
            continue
        if token.level == 0 and token.map and token.nesting in (1, 0):
            start, end = token.map
            text = "\n".join(lines[start:end]).strip()
            if token.type in REFLOWED:
                text = reflow_text(text).strip()
            if text:
                blocks.append(Block(text=text, line_start=start + 1, line_end=end,
                                    heading_path=tuple(h[1] for h in headings)))
            # skip to the matching close token of this top-level element
            if token.nesting == 1:
                depth = 1
                while depth and i + 1 < len(tokens):
                    i += 1
                    depth += tokens[i].nesting
        i += 1
    return ExtractedText(blocks=blocks, title=title, warnings=warnings)
