"""HTML with BeautifulSoup: text of block elements under the heading path above them."""

from __future__ import annotations

from bs4 import BeautifulSoup

from ingest.extract.types import Block, ExtractedText, decode_text

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
TEXT_TAGS = ("p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "figcaption", "caption")


def extract_html(content: bytes, filename: str) -> ExtractedText:
    soup = BeautifulSoup(decode_text(content), "html.parser")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    body = soup.body or soup
    headings: list[tuple[int, str]] = []
    blocks: list[Block] = []
    for element in body.find_all(HEADINGS + TEXT_TAGS):
        if element.name in HEADINGS:
            level = int(element.name[1])
            text = element.get_text(" ", strip=True)
            headings = [h for h in headings if h[0] < level] + [(level, text)]
            continue
        if element.find_parent(TEXT_TAGS):  # nested (li inside td …): its parent holds it
            continue
        text = element.get_text(" ", strip=True)
        if text:
            blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
    if not blocks:  # no block markup at all: take the visible text as one block
        text = body.get_text("\n", strip=True)
        if text:
            blocks.append(Block(text=text))
    if not title and headings:
        title = headings[0][1]
    return ExtractedText(blocks=blocks, title=title or None)
