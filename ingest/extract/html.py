"""HTML with BeautifulSoup: text of block elements under the heading path above them; a table
one block, a row a line."""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup

from app.domain.charsets import html_declared_charset
from ingest.extract.types import Block, ExtractedText, decode_text

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
TEXT_TAGS = ("p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "figcaption", "caption")


def table_text(table: Any) -> str:
    """A table as DOCX tables read: its caption, then a row a line, cells joined by " | "
    (they came out a cell a paragraph: "5\n\nBrazil\n\n203,049,000"). A table inside a
    cell is read as that cell's text."""
    lines = []
    caption = table.find("caption")
    if caption is not None and caption.find_parent("table") is table:
        lines.append(caption.get_text(" ", strip=True))
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells = [cell.get_text(" ", strip=True) for cell in row.find_all(("td", "th"))
                 if cell.find_parent("tr") is row]
        if any(cells):
            lines.append(" | ".join(cells))
    return "\n".join(line for line in lines if line)


def extract_html(content: bytes, filename: str,
                 declared_charset: str | None = None) -> ExtractedText:
    """``declared_charset``: what the container said (an e-mail part's, an MHT's); the page's
    own ``<meta charset>`` wins over it, as in a browser."""
    warnings: list[str] = []
    declared = html_declared_charset(content) or declared_charset
    soup = BeautifulSoup(decode_text(content, warnings, declared, web=True), "lxml")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    body = soup.body or soup
    headings: list[tuple[int, str]] = []
    blocks: list[Block] = []
    for element in body.find_all((*HEADINGS, *TEXT_TAGS, "table")):
        if element.name in HEADINGS:
            level = int(element.name[1])
            text = element.get_text(" ", strip=True)
            headings = [h for h in headings if h[0] < level] + [(level, text)]
            continue
        if element.find_parent("table"):  # a table is read whole, a row a line (below)
            continue
        if element.name == "table":
            text = table_text(element)
        elif element.find_parent(TEXT_TAGS):  # nested (li inside blockquote …): its parent
            continue
        else:
            text = element.get_text(" ", strip=True)
        if text:
            blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
    if not blocks:  # no block markup at all: take the visible text as one block
        text = body.get_text("\n", strip=True)
        if text:
            blocks.append(Block(text=text))
    if not title and headings:
        title = headings[0][1]
    return ExtractedText(blocks=blocks, title=title or None, warnings=warnings)
