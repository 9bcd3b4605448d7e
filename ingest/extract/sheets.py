"""Spreadsheets (.xlsx, openpyxl in read-only mode) and CSV: each row one block, its cells in
column order ("2024-01-15 | 18450 | Kestrel"), the header's names once at the head of each
chunk ("Columns: Date | Amount | Counterparty"), so a chunk of rows reads on its own, a wide
sheet costs what its cells cost, and an evidence item cites its sheet and rows.

Only stored values are read: a formula cell gives the result the file saved with it
(``data_only``), never an evaluation. Bounded: cells and sheets (SheetTooLarge) and, for
.xlsx, the unzipped size (a ZIP bomb) before anything is parsed. A sheet costs what its cells
cost, never what it declares: the sheet's XML is read cell by cell (openpyxl's own parser,
without its read-only worksheet, which pads every missing row and column up to the declared
``<dimension>`` — 4.7 KB declaring A1:XFD1048576 held a child for 900 s).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from lxml import etree

from app.domain.errors import ExtractionError
from app.store.payload import COLUMN_SEPARATOR, COLUMNS_LABEL  # " | ", as DOCX and HTML tables
from ingest.extract.docx import check_unzipped_size
from ingest.extract.ooxml import (
    R_NS,
    chart_paragraphs,
    diagram_paragraphs,
    drawing_paragraphs,
    open_mending,
    parse_part,
    readable_package,
    related,
    relationships,
    rewritten_package,
)
from ingest.extract.types import Block, ExtractedText, decode_text

SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
MAX_CELLS = 1_000_000  # non-empty cells read per document
MAX_SHEETS = 100
MAX_CELL_CHARS = 2000  # a longer cell is cut: rows stay readable and chunks whole
NAMED_SEPARATOR = " · "  # a sparse row's cells, each named: "column XFD: far 3"
MAX_EMPTY_PLACES = 8
# a header line longer than this may be cut where chunks repeat it (ingest/chunking.py
# HEADER_SHARE: a quarter of a 512-token chunk, 128 tokens, about 500 characters of English
# at ~4 a token): such a header is also kept whole once, as a row
WIDE_HEADER_CHARS = 500


class SheetTooLarge(ExtractionError):
    code = "SPREADSHEET_TOO_LARGE"


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value).strip()[:MAX_CELL_CHARS]


# A row as (its number, [(column index from 0, value), ...]): only the cells a file holds
SparseRow = tuple[int, Iterable[tuple[int, Any]]]


def looks_like_header(cells: list[tuple[int, Any]]) -> bool:
    """A first row is a header when every filled cell is a label: text that is no number and
    no date, each label once (the rule csv.Sniffer.has_header approximates by column types).
    A first row of numbers or dates is data, and the columns are named by their letters."""
    labels = [value for _, value in cells]
    if any(not isinstance(v, str) for v in labels):
        return False  # openpyxl gives numbers and dates as such
    texts = [v.strip() for v in labels]
    if len(set(texts)) < len(texts):
        return False
    return not any(NUMBER_OR_DATE.fullmatch(t) for t in texts)


NUMBER_OR_DATE = re.compile(r"[-+(]?[$€£¥]?\s?\d[\d,.' /:-]*%?\)?|\d{4}-\d{2}-\d{2}[T ].*")


def _rows_as_blocks(rows: Iterable[SparseRow], sheet: str | None, filename: str,
                    budget: list[int]) -> Iterator[Block]:
    """The first row holding any value is the header when it looks like one
    (``looks_like_header``) and a later row follows; every data row a block naming its cells
    by their header ("column C" where there is none)."""
    header: dict[int, str] | None = None
    first: tuple[int, list[tuple[int, Any]]] | None = None
    for number, raw in rows:
        values = [(i, value) for i, value in raw if _cell_text(value)]
        if not values:
            continue
        budget[0] -= len(values)
        if budget[0] < 0:
            raise SheetTooLarge(f"{filename} holds more than {MAX_CELLS:,} filled cells; split "
                                "it into smaller files")
        if first is None and header is None:
            first = (number, values)  # a header, or the first data row: the next row tells
            continue
        if first is not None:
            if looks_like_header(first[1]):
                header = {i: _cell_text(v) for i, v in first[1]}
                if len(columns_line(header)) > WIDE_HEADER_CHARS:
                    # each chunk repeats a header cut to fit (ingest/chunking.py): the whole
                    # header is indexed once, as the sheet's first row, so no column is lost
                    yield _row_block(first[0], first[1], header, sheet)
            else:
                header = {}
                yield _row_block(first[0], first[1], header, sheet)
            first = None
        yield _row_block(number, values, header or {}, sheet)
    if first is not None:  # a sheet of one filled row: that row is data
        yield _row_block(first[0], first[1], {}, sheet)


def _row_block(number: int, values: list[tuple[int, Any]], header: dict[int, str],
               sheet: str | None) -> Block:
    """A row as a line of its cells in column order (an empty cell keeps its place); the
    header's names go once at the head of each chunk (ingest/chunking.py), not in every cell
    (that turned a 2.7 MB CSV into 6.6 M characters)."""
    cells = {i: _cell_line(value) for i, value in values}
    if _sparse(cells):  # a lone cell far right: named, never thousands of empty places
        text = NAMED_SEPARATOR.join(f"{header.get(i) or f'column {_letters(i)}'}: {cells[i]}"
                                    for i in sorted(cells))
    else:
        text = COLUMN_SEPARATOR.join(cells.get(i, "") for i in range(max(cells) + 1))
    return Block(text=text, line_start=number, line_end=number,
                 heading_path=(sheet,) if sheet else (), row=True, sheet=sheet,
                 header=columns_line(header) if header and not _sparse(header) else None)


def _sparse(cells: dict[int, Any]) -> bool:
    """More empty places before the last filled cell than filled cells (and over a few)."""
    empty = max(cells) + 1 - len(cells)
    return empty > max(MAX_EMPTY_PLACES, len(cells))


def columns_line(header: dict[int, str]) -> str:
    """``Columns: Date | Amount | column C``: what heads each chunk of a table's rows."""
    return COLUMNS_LABEL + COLUMN_SEPARATOR.join(
        _cell_line(header.get(i)) or f"column {_letters(i)}" for i in range(max(header) + 1))


def _cell_line(value: Any) -> str:
    """A cell's text on one line, with the column separator inside it written otherwise."""
    return " ".join(_cell_text(value).split()).replace(" | ", " / ")


def _letters(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA (a spreadsheet's column name)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _without_styles(read: Callable[[bytes], Any], content: bytes, failure: Exception
                    ) -> tuple[Any, bytes, list[str]]:
    """The workbook read without its styles part, where that part is what openpyxl could not
    read (Apache POI's picture.xlsx and style-alternate-content.xlsx: a stylesheet with
    attributes openpyxl does not know). Cell values need no style; a day stored as a number
    shows as its serial number then, which the warning says. ``failure`` raised again where
    the workbook has no styles part or fails without it too."""
    import zipfile

    package = zipfile.ZipFile(io.BytesIO(content))
    styles = related(package, "xl/workbook.xml", "styles")
    if not styles:
        raise failure
    rest = rewritten_package(package, lambda member, data: None
                             if member.filename in styles else data)
    try:
        book = read(rest)
    except Exception:  # noqa: BLE001 — the styles were not (all) the trouble
        raise failure from None
    return book, rest, [
        f"the workbook's styles ({styles[0]}) could not be read ({type(failure).__name__}: "
        f"{str(failure)[:120]}); its cells were read without them, so a date may show as its "
        "serial number"]


def extract_xlsx(content: bytes, filename: str) -> ExtractedText:
    import zipfile

    import openpyxl

    check_unzipped_size(content, filename, "xlsx")
    content, strict = readable_package(content, "xlsx")
    def read(data: bytes) -> Any:
        # keep_links=False: links to other workbooks are never read (a missing external-link
        # part failed the whole workbook with KeyError)
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True,
                                      keep_links=False)

    try:
        try:
            book, content, warnings = open_mending(read, content)
        except (TypeError, ValueError, SyntaxError, AttributeError) as exc:
            book, content, warnings = _without_styles(read, content, exc)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, SyntaxError, TypeError,
            AttributeError) as exc:
        raise ExtractionError(f"{filename} is not a readable .xlsx workbook "
                              f"({type(exc).__name__}); it may be corrupt or an old .xls",
                              code="XLSX_CORRUPT") from None
    try:
        if len(book.sheetnames) > MAX_SHEETS:
            raise SheetTooLarge(f"{filename} has {len(book.sheetnames)} sheets; at most "
                                f"{MAX_SHEETS}")
        budget = [MAX_CELLS]
        blocks: list[Block] = []
        for sheet in book.worksheets:
            try:
                blocks.extend(_rows_as_blocks(_sheet_cells(book, sheet), sheet.title,
                                              filename, budget))
            except ExtractionError:
                raise
            except Exception as exc:  # noqa: BLE001 — one sheet costs only itself
                warnings.append(f"sheet {sheet.title!r} could not be read and was left out "
                                f"({type(exc).__name__}: {str(exc)[:120]})")
        blocks.extend(drawing_blocks(content, warnings))
        title = (book.properties.title or "").strip() or None
        sheets = len(book.sheetnames)
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds on broken parts
        raise ExtractionError(f"{filename}: the workbook could not be read to the end "
                              f"({type(exc).__name__})", code="XLSX_CORRUPT") from None
    finally:
        book.close()
    extracted = ExtractedText(blocks=blocks, title=title, extra={"sheet_count": sheets},
                              warnings=warnings)
    if strict:
        extracted.quality["ooxml_variant"] = "strict"
    if warnings:  # each names a sheet or a drawing left out
        extracted.quality["unread_elements"] = len(warnings)
    return extracted


def drawing_blocks(content: bytes, warnings: list[str]) -> list[Block]:
    """Each sheet's text boxes, shapes, charts and SmartArt (its drawing part, and the charts
    and diagrams that drawing holds), under the heading "Drawings", cited by sheet. One
    drawing that cannot be read costs only itself."""
    import zipfile

    package = zipfile.ZipFile(io.BytesIO(content))
    blocks: list[Block] = []
    try:
        book = parse_part(package.read("xl/workbook.xml"))
    except (KeyError, etree.XMLSyntaxError):
        return blocks
    paths = dict(relationships(package, "xl/workbook.xml", "worksheet"))
    for sheet in book.iter(f"{{{SHEET_NS}}}sheet"):
        name, path = sheet.get("name"), paths.get(sheet.get(f"{{{R_NS}}}id") or "")
        for drawing in related(package, path, "drawing") if path else []:
            texts: list[str] = []
            # the drawing's own shapes, then each diagram and chart it holds: each costs
            # only itself
            try:
                holds = ([("a SmartArt diagram", data, diagram_paragraphs)
                          for data in related(package, drawing, "diagramData")]
                         + [("a chart", chart, chart_paragraphs)
                            for chart in related(package, drawing, "chart")])
            except (KeyError, etree.XMLSyntaxError, zipfile.BadZipFile) as exc:
                warnings.append(f"the diagrams and charts of a drawing of sheet {name!r} "
                                f"(its relationships) could not be read and were left out "
                                f"({type(exc).__name__})")
                holds = []
            for what, part, read in [("a drawing", drawing, _drawing_paragraphs), *holds]:
                try:
                    texts += read(package.read(part))
                except (KeyError, etree.XMLSyntaxError, zipfile.BadZipFile) as exc:
                    warnings.append(f"{what} of sheet {name!r} ({part}) could not be read and "
                                    f"was left out ({type(exc).__name__})")
            if texts:
                blocks.append(Block(text="\n".join(texts), sheet=name,
                                    heading_path=("Drawings",)))
    return blocks


def _drawing_paragraphs(blob: bytes) -> list[str]:
    return drawing_paragraphs(parse_part(blob))


def _sheet_cells(book: Any, sheet: Any) -> Iterator[SparseRow]:
    """The cells a read-only sheet's XML holds, row by row, with nothing padded."""
    from openpyxl.worksheet._reader import WorkSheetParser

    with sheet._get_source() as source:
        parser = WorkSheetParser(source, sheet._shared_strings, data_only=book.data_only,
                                 epoch=book.epoch, date_formats=book._date_formats,
                                 timedelta_formats=book._timedelta_formats)
        for number, row in parser.parse():
            yield number, ((cell["column"] - 1, cell["value"]) for cell in row)


def extract_csv(content: bytes, filename: str) -> ExtractedText:
    warnings: list[str] = []
    text = decode_text(content, warnings)
    try:
        dialect: Any = csv.Sniffer().sniff(text[:16384], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = csv.reader(io.StringIO(text, newline=""), dialect)
        blocks = list(_rows_as_blocks(((n, enumerate(row)) for n, row in enumerate(rows, 1)),
                                      None, filename, [MAX_CELLS]))
    except csv.Error as exc:
        raise ExtractionError(f"{filename} is not readable CSV ({exc})",
                              code="CSV_CORRUPT") from None
    return ExtractedText(blocks=blocks, warnings=warnings)
