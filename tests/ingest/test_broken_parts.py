"""A part of an Office file that cannot be parsed costs only itself: a chart, a slide, a
slide's notes or the document properties left out with a warning naming them, the rest read
(ingest/extract/ooxml.py mend_parts). The files are real ones made by other programs
(tests/fixtures/*/README.md: python-pptx's and Apache Tika's test files) with one part cut in
half, as a truncated copy or a bad tool leaves it. Before: each failed the whole file
(PPTX_CORRUPT, DOCX_CORRUPT, or a raw XMLSyntaxError from openpyxl)."""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from app.domain.errors import ExtractionError
from ingest.extract import extract

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHARTS = FIXTURES / "pptx" / "cht-chart-type.pptx"  # python-pptx's: 8 slides, 31 charts


def cut(data: bytes, *names: str) -> bytes:
    """The package with each named part cut in half (its XML no longer parses)."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    assert set(names) <= set(source.namelist())
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            body = source.read(member)
            package.writestr(member, body[: len(body) // 2] if member.filename in names
                             else body)
    return out.getvalue()


def _pages(data: bytes) -> Counter[int]:
    return Counter(b.page for b in extract("pptx", data, "deck.pptx").blocks)


def test_a_deck_with_one_broken_chart_reads_its_other_thirty() -> None:
    data = CHARTS.read_bytes()
    result = extract("pptx", cut(data, "ppt/charts/chart1.xml"), "deck.pptx")
    assert len(result.blocks) == 30
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("a chart (ppt/charts/chart1.xml) could not be read "
                                         "and was left out (XMLSyntaxError")
    assert result.quality["unread_elements"] == 1


def test_a_deck_with_one_broken_slide_reads_the_others_and_counts_every_slide() -> None:
    from pptx import Presentation

    data = CHARTS.read_bytes()
    order = [str(s.part.partname).lstrip("/") for s in Presentation(io.BytesIO(data)).slides]
    broken = order.index("ppt/slides/slide2.xml") + 1
    before = _pages(data)
    result = extract("pptx", cut(data, "ppt/slides/slide2.xml"), "deck.pptx")
    after = Counter(b.page for b in result.blocks)
    assert after == Counter({p: n for p, n in before.items() if p != broken})
    assert result.page_count == 8  # the slide is still there, only empty: pages keep numbers
    assert [w.split(" could")[0] for w in result.warnings] == [
        "a slide (ppt/slides/slide2.xml)"]


def test_a_slides_broken_notes_cost_the_notes_only() -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for n in (1, 2):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = f"Quarter {n}"
        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(5), Inches(1)).text_frame.text = \
            f"Revenue grew in quarter {n}"
        slide.notes_slide.notes_text_frame.text = f"Say the margin for quarter {n}"
    raw = io.BytesIO()
    deck.save(raw)
    result = extract("pptx", cut(raw.getvalue(), "ppt/notesSlides/notesSlide1.xml"),
                     "notes.pptx")
    texts = [b.text for b in result.blocks]
    assert texts == ["Revenue grew in quarter 1", "Revenue grew in quarter 2",
                     "Speaker notes: Say the margin for quarter 2"]
    assert result.warnings[0].startswith("a slide's speaker notes")


@pytest.mark.parametrize("kind, name", [("pptx", "pptx/cht-chart-type.pptx"),
                                        ("docx", "docx/testWORD_various.docx"),
                                        ("xlsx", "xlsx/testEXCEL_textbox.xlsx")])
def test_broken_document_properties_cost_the_title_only(kind: str, name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    sound = extract(kind, data, name)
    result = extract(kind, cut(data, "docProps/core.xml"), name)
    assert [b.text for b in result.blocks] == [b.text for b in sound.blocks]
    assert [w.split(" could")[0] for w in result.warnings] == [
        "the document properties (title, author) (docProps/core.xml)"]


def test_a_word_paragraph_keeps_its_words_when_its_chart_is_broken() -> None:
    """Apache Tika's chart document with words written beside the chart in its paragraph:
    the broken chart is left out, the paragraph's words are read."""
    data = (FIXTURES / "docx" / "testWORD_charts.docx").read_bytes()
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            body = source.read(member)
            if member.filename == "word/document.xml":
                body = body.replace(b"<w:bookmarkStart", b"<w:r><w:t>Sales by month, as "
                                    b"charted</w:t></w:r><w:bookmarkStart", 1)
            elif member.filename == "word/charts/chart1.xml":
                body = body[: len(body) // 2]
            package.writestr(member, body)
    result = extract("docx", out.getvalue(), "charts.docx")
    assert [b.text for b in result.blocks] == ["Sales by month, as charted"]
    assert result.warnings[0].startswith("a chart could not be read and was left out")


@pytest.mark.parametrize("kind, name, part, code", [
    ("pptx", "pptx/cht-chart-type.pptx", "ppt/presentation.xml", "PPTX_CORRUPT"),
    ("docx", "docx/testWORD_various.docx", "word/document.xml", "DOCX_CORRUPT"),
    ("xlsx", "xlsx/testEXCEL_textbox.xlsx", "xl/workbook.xml", "XLSX_CORRUPT"),
])
def test_a_broken_main_part_is_still_the_files_own_code(kind: str, name: str, part: str,
                                                        code: str) -> None:
    """The other side of the line: a part without which nothing can be read has no stand-in;
    the file fails its own job with its format's code."""
    with pytest.raises(ExtractionError) as caught:
        extract(kind, cut((FIXTURES / name).read_bytes(), part), name)
    assert caught.value.code == code


@pytest.mark.parametrize("part, said", [
    ("ppt/slideLayouts/slideLayout1.xml", "a slide layout (what its slides inherit)"),
    ("ppt/slideMasters/slideMaster1.xml", "a slide master (what its slides inherit)"),
])
def test_a_broken_layout_or_master_costs_what_it_holds_not_the_slides(part: str,
                                                                       said: str) -> None:
    result = extract("pptx", cut(CHARTS.read_bytes(), part), "deck.pptx")
    assert len(result.blocks) == 31  # every chart of every slide
    assert [w.split(" could")[0] for w in result.warnings] == [f"{said} ({part})"]


def test_a_decks_broken_smartart_is_named_in_the_reason_not_a_crash() -> None:
    """Tika's SmartArt deck holds its words only in the diagram: with the diagram broken
    there is no text, and the reason says which part was left out (before: a raw
    XMLSyntaxError from the diagram reader failed the whole deck as EXTRACTION_FAILED)."""
    name = "pptx/testPPT_diagramData.pptx"
    with pytest.raises(ExtractionError) as caught:
        extract("pptx", cut((FIXTURES / name).read_bytes(), "ppt/diagrams/data1.xml"), name)
    assert caught.value.code == "NO_TEXT"
    assert "slide 1: a SmartArt diagram (/ppt/diagrams/data1.xml) could not be read" in str(
        caught.value)


def _workbook_with_a_chart() -> bytes:
    from openpyxl import Workbook
    from openpyxl.chart import BarChart, Reference

    book = Workbook()
    sheet = book.active
    for row in (["quarter", "revenue"], ["Q1", 10], ["Q2", 12]):
        sheet.append(row)
    chart = BarChart()
    chart.title = "Revenue by quarter"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    sheet.add_chart(chart, "D2")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.mark.parametrize("part, chart_read, said", [
    (None, True, None),
    ("xl/charts/chart1.xml", False, "a chart of sheet 'Sheet' (xl/charts/chart1.xml)"),
    # the drawing's own shapes lost, the chart it holds still read
    ("xl/drawings/drawing1.xml", True, "a drawing of sheet 'Sheet' (xl/drawings/drawing1.xml)"),
    ("xl/drawings/_rels/drawing1.xml.rels", False,
     "the diagrams and charts of a drawing of sheet 'Sheet' (its relationships)"),
])
def test_a_sheets_broken_chart_or_drawing_costs_only_itself(part: str | None, chart_read: bool,
                                                            said: str | None) -> None:
    data = _workbook_with_a_chart()
    result = extract("xlsx", cut(data, part) if part else data, "book.xlsx")
    texts = [b.text for b in result.blocks]
    assert texts[:2] == ["Q1 | 10", "Q2 | 12"]  # the cells, whatever the drawing
    assert ("Revenue by quarter" in texts) is chart_read
    assert [w.split(" could")[0] for w in result.warnings] == ([said] if said else [])


@pytest.mark.parametrize("damage", ["cut", "foreign"])
def test_a_workbook_whose_styles_openpyxl_cannot_read_is_read_without_them(
        damage: str) -> None:
    """Apache POI's style-alternate-content.xlsx (a named style without a name: openpyxl
    raised TypeError, the whole workbook lost) and a styles part cut in half: the cells are
    read without their styles, and the warning says a date may show as its serial number."""
    if damage == "foreign":
        data = (FIXTURES / "xlsx" / "style-alternate-content.xlsx").read_bytes()
        first = "1. 센터명"
    else:
        data = cut(_workbook_with_a_chart(), "xl/styles.xml")
        first = "Q1 | 10"
    result = extract("xlsx", data, "book.xlsx")
    assert result.blocks[0].text == first
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("the workbook's styles (xl/styles.xml) could not be "
                                         "read (")
    assert result.warnings[0].endswith("so a date may show as its serial number")


def test_part_names_in_another_case_or_with_backslashes_are_found() -> None:
    """Apache POI's 49609.xlsx ("[content_types].xml", "xl\\sharedstrings.xml"; POI matches
    names case-insensitively, as OPC says) was XLSX_CORRUPT; a real Word file renamed the
    same way reads as the original does."""
    from ingest.extract.ooxml import canonical_part_names

    result = extract("xlsx", (FIXTURES / "xlsx" / "49609.xlsx").read_bytes(), "49609.xlsx")
    assert len(result.blocks) == 78 and result.warnings == []
    assert result.blocks[1].text.startswith(" | 1 | 11698.2415270953 | 10700.2063482")

    word = (FIXTURES / "docx" / "testWORD_various.docx").read_bytes()
    source, out = zipfile.ZipFile(io.BytesIO(word)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            body = source.read(member)
            member.filename = member.filename.lower().replace("/", "\\")
            package.writestr(member, body)
    sound = extract("docx", word, "various.docx")
    renamed = extract("docx", out.getvalue(), "various.docx")
    assert [b.text for b in renamed.blocks] == [b.text for b in sound.blocks]
    assert canonical_part_names(word) == (word, False)  # a sound package: untouched


def test_a_part_named_but_missing_costs_only_itself() -> None:
    """Apache POI's 60316b.dotx: three headers name an image the file does not hold;
    python-docx failed the whole document (KeyError). The headers' words are read, a warning
    names each missing part."""
    name = FIXTURES / "office_variants" / "60316b.dotx"
    result = extract("docx", name.read_bytes(), name.name)
    assert "footer 1\n06/03/2009  3:16" in [b.text for b in result.blocks]
    assert result.warnings == [
        f"word/media/image1.png, which word/header{n}.xml names, is missing from the file and "
        "was left out" for n in (1, 2, 3)]


def test_a_deck_whose_picture_was_dropped_reads_its_words() -> None:
    """A python-pptx deck with a picture, the picture's part removed from the package: the
    slide's words are read (python-pptx passes over a missing part itself, so nothing needs
    mending and no warning is made: a picture's loss costs no words)."""
    from pptx import Presentation
    from pptx.util import Inches

    from tests.factories import image_bytes, scan_image

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Site visit"
    slide.shapes.add_textbox(Inches(1), Inches(2), Inches(5), Inches(1)).text_frame.text = \
        "The roof needs repair"
    slide.shapes.add_picture(io.BytesIO(image_bytes(scan_image(["photo"]), "PNG")), Inches(1),
                             Inches(4))
    raw = io.BytesIO()
    deck.save(raw)
    source, out = zipfile.ZipFile(io.BytesIO(raw.getvalue())), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            if not member.filename.startswith("ppt/media/"):
                package.writestr(member, source.read(member))
    result = extract("pptx", out.getvalue(), "visit.pptx")
    assert [b.text for b in result.blocks] == ["The roof needs repair"]
