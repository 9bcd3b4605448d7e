"""What the three Office Open XML formats share: parts parsed safely, DrawingML text (text
boxes, shapes, SmartArt) read as paragraphs, and the Strict variant's namespaces mapped to the
Transitional ones the libraries know.

Why by hand: python-docx, python-pptx and openpyxl read the object models they were written
for; text in a SmartArt data part, a workbook's drawing or a Strict package is outside them, so
it is read here from the XML the file holds (ECMA-376 Part 1, §20 DrawingML and §21.4 diagrams).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from lxml import etree

A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
# DrawingML paragraphs and their text runs (a:t), line breaks and fields (slide numbers, dates)
_A_P, _A_T, _A_BR = f"{{{A_NS}}}p", f"{{{A_NS}}}t", f"{{{A_NS}}}br"

# ISO/IEC 29500 Strict names the same parts and elements under other namespaces; openpyxl
# reads only Transitional, so a Strict package is renamed part by part before it is opened
STRICT_TO_TRANSITIONAL = {
    b"http://purl.oclc.org/ooxml/spreadsheetml/main":
        b"http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    b"http://purl.oclc.org/ooxml/wordprocessingml/main":
        b"http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    b"http://purl.oclc.org/ooxml/presentationml/main":
        b"http://schemas.openxmlformats.org/presentationml/2006/main",
    b"http://purl.oclc.org/ooxml/drawingml/main":
        b"http://schemas.openxmlformats.org/drawingml/2006/main",
    b"http://purl.oclc.org/ooxml/drawingml/spreadsheetDrawing":
        b"http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing",
    b"http://purl.oclc.org/ooxml/drawingml/chart":
        b"http://schemas.openxmlformats.org/drawingml/2006/chart",
    b"http://purl.oclc.org/ooxml/officeDocument/relationships":
        b"http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    b"http://purl.oclc.org/ooxml/officeDocument/extendedProperties":
        b"http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
    b"http://purl.oclc.org/ooxml/officeDocument/customProperties":
        b"http://schemas.openxmlformats.org/officeDocument/2006/custom-properties",
    b"http://purl.oclc.org/ooxml/officeDocument/docPropsVTypes":
        b"http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes",
    b"http://purl.oclc.org/ooxml/officeDocument/sharedTypes":
        b"http://schemas.openxmlformats.org/officeDocument/2006/sharedTypes",
}
STRICT_MARK = b"http://purl.oclc.org/ooxml/"

T = TypeVar("T")

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                          remove_comments=True)


def parse_part(blob: bytes) -> Any:
    """A part's XML as a tree: no entities resolved, nothing fetched (an OOXML part is
    untrusted input like the rest of the upload)."""
    return etree.fromstring(blob, _PARSER)


def drawing_paragraphs(element: Any) -> list[str]:
    """The DrawingML paragraphs (``a:p``) under ``element`` as text, in document order: a
    text box's, a shape's or a SmartArt node's words; empty paragraphs left out."""
    out = []
    for paragraph in element.iter(_A_P):
        parts = []
        for node in paragraph.iter(_A_T, _A_BR):
            parts.append("\n" if node.tag == _A_BR else (node.text or ""))
        text = "".join(parts).strip()
        if text:
            out.append(text)
    return out


def diagram_paragraphs(data_part_blob: bytes) -> list[str]:
    """A SmartArt diagram's text, read from its data part (``dgm:dataModel``): every node's
    paragraphs, in the order the data model lists them."""
    return drawing_paragraphs(parse_part(data_part_blob))


C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_C_SER, _C_TX, _C_CAT, _C_VAL, _C_V = (f"{{{C_NS}}}{t}" for t in ("ser", "tx", "cat", "val",
                                                                    "v"))
MAX_CHART_POINTS = 200  # a chart's values read, per series


def chart_paragraphs(chart_part_blob: bytes) -> list[str]:
    """A chart's words and numbers from its part (``c:chartSpace``): its titles, then each
    series as "name: category value · category value" from the values it caches, as
    python-pptx's charts read on slides (ingest/extract/slides.py chart_text)."""
    root = parse_part(chart_part_blob)
    series = list(root.iter(_C_SER))
    titles = [p for p in drawing_paragraphs(root) if p]
    lines = list(dict.fromkeys(titles))
    for ser in series:
        tx = ser.find(_C_TX)
        name = " ".join(v.text or "" for v in tx.iter(_C_V)).strip() if tx is not None else ""
        cat, val = ser.find(_C_CAT), ser.find(_C_VAL)
        cats = [v.text or "" for v in cat.iter(_C_V)] if cat is not None else []
        vals = [v.text or "" for v in val.iter(_C_V)] if val is not None else []
        pairs = [f"{c} {v}".strip() for c, v in zip(cats or [""] * len(vals), vals,
                                                    strict=False)][:MAX_CHART_POINTS]
        line = f"{name}: " + " · ".join(pairs) if pairs else name
        if line.strip(": "):
            lines.append(line)
    return lines


def strict_to_transitional(xml: bytes) -> bytes:
    """One part of a Strict package with its namespaces renamed to Transitional's."""
    for strict, transitional in STRICT_TO_TRANSITIONAL.items():
        xml = xml.replace(strict, transitional)
    return xml


def _resolve(base: str, target: str) -> str:
    """A relationship's target as a path in the package (targets are relative to the part's
    folder, or absolute from the package root)."""
    import posixpath

    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), target))


def relationships(package: Any, part: str, kind: str) -> list[tuple[str, str]]:
    """(relationship id, package path) of ``part``'s relationships of ``kind`` (the type's
    last segment: "drawing", "diagramData", "worksheet"), in the order its .rels lists them;
    external targets left out."""
    import posixpath

    rels = posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")
    try:
        root = parse_part(package.read(rels))
    except KeyError:
        return []
    return [(rel.get("Id", ""), _resolve(part, rel.get("Target", ""))) for rel in root
            if rel.get("Type", "").rsplit("/", 1)[-1] == kind
            and rel.get("TargetMode") != "External"]


def related(package: Any, part: str, kind: str) -> list[str]:
    """The package paths ``part``'s relationships of ``kind`` point to (``relationships``)."""
    return [path for _rid, path in relationships(package, part, kind)]


def transitional_package(content: bytes) -> tuple[bytes, bool]:
    """A Strict Open XML package (ISO/IEC 29500 Strict: Word's and Excel's "Strict Open XML"
    Save As, pandoc's test files) rewritten with Transitional's namespaces, which
    python-docx, openpyxl and python-pptx read; any other package as it is. Strict is told by
    its package relationships (``_rels/.rels``), which name the main part in its namespace.
    Returns the package and whether it was Strict (``quality.ooxml_variant`` says so)."""
    import zipfile

    package = _package(content)
    if package is None:
        return content, False
    try:
        strict = STRICT_MARK in package.read("_rels/.rels")
    except (KeyError, zipfile.BadZipFile, OSError):  # the reader says what is wrong with it
        return content, False
    if not strict:
        return content, False
    return rewritten_package(package, lambda member, data: strict_to_transitional(data)
                             if member.filename.endswith((".xml", ".rels")) else data), True


def _package(content: bytes) -> Any:
    """The bytes as a ZIP (``zipfile.ZipFile``), or None where they are none: the reader
    then says what is wrong with them."""
    import io
    import zipfile

    try:
        return zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, OSError):
        return None


def rewritten_package(package: Any, change: Callable[[Any, bytes], bytes | None]) -> bytes:
    """The package again, each member's bytes as ``change(member, data)`` gives them (None:
    left out; ``change`` may rename the member)."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as rewritten:
        for member in package.infolist():
            data = change(member, package.read(member))
            if data is not None:
                rewritten.writestr(member, data)
    return out.getvalue()


def readable_package(content: bytes, kind: str) -> tuple[bytes, bool]:
    """An Office upload as its library reads it: part names as referenced, Strict as
    Transitional, a template's, show's or macro-enabled file's main part as the plain
    document's. Returns the package and whether it was Strict."""
    content = canonical_part_names(content)[0]
    content, strict = transitional_package(content)
    if kind in _MAIN_TYPES:
        content = as_main_document(content, kind)[0]
    return content, strict


# A part the reader needs present but whose content is one item of many: when it cannot be
# parsed, an empty one of its kind stands in, so it costs only itself (named in a warning)
# rather than the whole file. A document's own body, a workbook's sheets or styles, a deck's
# presentation part have no stand-in: without them there is nothing to read.
_P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
_EMPTY_TREE = ('<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
               '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld>')
STAND_INS: tuple[tuple[re.Pattern[str], str, bytes], ...] = tuple(
    (re.compile(pattern), what, xml.encode()) for pattern, what, xml in (
        (r"docProps/core\.xml", "the document properties (title, author)",
         '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
         'metadata/core-properties"/>'),
        (r"docProps/app\.xml", "the application properties",
         '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
         'extended-properties"/>'),
        (r"docProps/custom\.xml", "the custom properties",
         '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
         'custom-properties"/>'),
        (r"(word|xl|ppt)/charts/chart\d+\.xml", "a chart",
         f'<c:chartSpace xmlns:c="{C_NS}"><c:chart><c:plotArea/></c:chart></c:chartSpace>'),
        (r"ppt/slides/slide\d+\.xml", "a slide",
         f'<p:sld xmlns:p="{_P_NS}" xmlns:a="{A_NS}">{_EMPTY_TREE}</p:sld>'),
        (r"ppt/notesSlides/notesSlide\d+\.xml", "a slide's speaker notes",
         f'<p:notes xmlns:p="{_P_NS}" xmlns:a="{A_NS}">{_EMPTY_TREE}</p:notes>'),
        (r"ppt/slideLayouts/slideLayout\d+\.xml", "a slide layout (what its slides inherit)",
         f'<p:sldLayout xmlns:p="{_P_NS}" xmlns:a="{A_NS}">{_EMPTY_TREE}</p:sldLayout>'),
        (r"ppt/slideMasters/slideMaster\d+\.xml", "a slide master (what its slides inherit)",
         f'<p:sldMaster xmlns:p="{_P_NS}" xmlns:a="{A_NS}">{_EMPTY_TREE}</p:sldMaster>'),
    ))


def mend_parts(content: bytes) -> tuple[bytes, list[str]]:
    """The package with each unparseable part that has a stand-in (``STAND_INS``) replaced by
    an empty one of its kind, and a warning for each; ``content`` itself when none was
    replaced. Asked only after the reader failed on XML, so a sound file pays nothing."""
    import zipfile

    package = _package(content)
    if package is None:
        return content, []
    warnings: list[str] = []
    replaced: dict[str, bytes] = {}
    for member in package.infolist():
        stand_in = next((s for s in STAND_INS if s[0].fullmatch(member.filename)), None)
        if stand_in is None:
            continue
        try:
            parse_part(package.read(member))
        except (etree.XMLSyntaxError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            replaced[member.filename] = stand_in[2]
            warnings.append(f"{stand_in[1]} ({member.filename}) could not be read and was "
                            f"left out ({type(exc).__name__}: {str(exc)[:120]})")
    if not replaced:
        return content, []
    return rewritten_package(package, lambda member, data: replaced.get(member.filename, data)), \
        warnings


def open_mending(read: Callable[[bytes], T], content: bytes) -> tuple[T, bytes, list[str]]:
    """``read(content)``; where the reader fails on a part's XML, the package mended
    (``mend_parts``) and read once more. Returns what was read, the package it was read from
    and a warning per part left out; the reader's own error where nothing could be mended."""
    try:
        return read(content), content, []
    except (SyntaxError, KeyError):  # lxml's XMLSyntaxError is one; KeyError: a part missing
        mended, warnings = mend_parts(content)
        mended, missing = without_missing_targets(mended)
        warnings += missing
        if not warnings:
            raise
    return read(mended), mended, warnings


def without_missing_targets(content: bytes) -> tuple[bytes, list[str]]:
    """The package with each relationship to a part it does not hold removed (an image a tool
    dropped: Apache POI's 60316b.dotx names ``word/media/image1.png`` and holds none, and
    python-docx failed the whole document with KeyError), a warning for each."""
    import posixpath

    package = _package(content)
    if package is None:
        return content, []
    names = set(package.namelist())
    warnings: list[str] = []
    replaced: dict[str, bytes] = {}
    for member in package.infolist():
        if not member.filename.endswith(".rels"):
            continue
        folder = posixpath.dirname(posixpath.dirname(member.filename))
        source = posixpath.join(folder, posixpath.basename(member.filename)[:-len(".rels")])
        try:
            root = parse_part(package.read(member))
        except etree.XMLSyntaxError:
            continue
        gone = [rel for rel in root if rel.get("TargetMode") != "External"
                and rel.get("Target") and _resolve(source, rel.get("Target")) not in names]
        for rel in gone:
            root.remove(rel)
            named_by = source or "the package"
            warnings.append(f"{_resolve(source, rel.get('Target'))}, which {named_by} names, "
                            "is missing from the file and was left out")
        if gone:
            replaced[member.filename] = etree.tostring(root, xml_declaration=True,
                                                       encoding="UTF-8", standalone=True)
    if not replaced:
        return content, []
    return rewritten_package(package, lambda member, data: replaced.get(member.filename, data)), \
        warnings


# The main part's content type of each kind's variants (ECMA-376 Part 1 §11–13 and Office's
# macro-enabled types): python-docx and python-pptx refuse any but the plain document's, though
# the parts they read are the same; openpyxl reads all of a workbook's variants itself
_MAIN_TYPES = {
    "docx": (b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
             (b"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
              b"application/vnd.ms-word.document.macroEnabled.main+xml",
              b"application/vnd.ms-word.template.macroEnabledTemplate.main+xml")),
    "pptx": (b"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
             (b"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
              b"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
              b"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
              b"application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
              b"application/vnd.ms-powerpoint.template.macroEnabled.main+xml")),
}


def as_main_document(content: bytes, kind: str) -> tuple[bytes, bool]:
    """A template, show or macro-enabled variant (.dotx, .docm, .ppsx, .pptm, …; also one
    named .docx, as Apache POI's stress014.docx is a template) with its main part declared as
    the plain document's, which is what the library opens; any other package as it is.
    Returns the package and whether it was a variant. The macros (``vbaProject.bin``) are
    never read."""
    import zipfile

    plain, variants = _MAIN_TYPES[kind]
    package = _package(content)
    if package is None:
        return content, False
    try:
        types = package.read("[Content_Types].xml")
    except (KeyError, zipfile.BadZipFile, OSError):  # the reader says what is wrong with it
        return content, False
    found = next((v for v in variants if v in types), None)
    if found is None or plain in types:
        return content, False
    return rewritten_package(package, lambda member, data: data.replace(found, plain)
                             if member.filename == "[Content_Types].xml" else data), True


def canonical_part_names(content: bytes) -> tuple[bytes, bool]:
    """A package whose part names use backslashes or another case than the names its content
    types and relationships give them (written by tools other than Office: Apache POI's
    49609.xlsx has ``[content_types].xml`` and ``xl\\sharedstrings.xml``) renamed as they are
    referenced — OPC part names match case-insensitively (ECMA-376 Part 2 §9.1.1.1), the
    libraries match them exactly. Any other package as it is; only its directory is read."""
    import posixpath

    package = _package(content)
    if package is None:
        return content, False
    members = package.infolist()
    names = {m.filename for m in members}
    if "[Content_Types].xml" in names and not any("\\" in n for n in names):
        return content, False
    actual = {m.filename.replace("\\", "/").lower(): m.filename for m in members}

    def read(name: str) -> Any:
        found = actual.get(name.lower())
        try:
            return parse_part(package.read(found)) if found else None
        except etree.XMLSyntaxError:
            return None

    wanted = {"[content_types].xml": "[Content_Types].xml", "_rels/.rels": "_rels/.rels"}
    types = read("[Content_Types].xml")
    for override in types if types is not None else ():
        if override.get("PartName"):
            name = override.get("PartName").lstrip("/")
            wanted[name.lower()] = name
    queue, seen = [""], set()  # the package itself, then each part its relationships name
    while queue:
        part = queue.pop()
        if part.lower() in seen:
            continue
        seen.add(part.lower())
        rels = posixpath.join(posixpath.dirname(part), "_rels",
                              posixpath.basename(part) + ".rels")
        wanted.setdefault(rels.lower(), rels)
        root = read(rels)
        for rel in root if root is not None else ():
            if rel.get("TargetMode") != "External" and rel.get("Target"):
                target = _resolve(part, rel.get("Target"))
                wanted.setdefault(target.lower(), target)
                queue.append(target)
    def renamed(member: Any, data: bytes) -> bytes:
        plain = member.filename.replace("\\", "/")
        member.filename = wanted.get(plain.lower(), plain)
        return data

    return rewritten_package(package, renamed), True
