"""The file formats the service reads: extension → (kind, MIME type), and what each kind's bytes
must look like. One table, so uploads, filters, the spec and the CLI never disagree."""

from __future__ import annotations

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

SUPPORTED = {
    ".pdf": ("pdf", "application/pdf"),
    ".docx": ("docx", DOCX_MIME),
    ".html": ("html", "text/html"), ".htm": ("html", "text/html"),
    ".md": ("md", "text/markdown"), ".markdown": ("md", "text/markdown"),
    ".txt": ("txt", "text/plain"), ".text": ("txt", "text/plain"),
    ".xlsx": ("xlsx", XLSX_MIME),
    ".csv": ("csv", "text/csv"),
    ".pptx": ("pptx", PPTX_MIME),
    # the same three formats macro-enabled, as templates or as shows: the same packages with
    # another main content type (ingest/extract/ooxml.as_main_document); macros never run
    ".docm": ("docx", "application/vnd.ms-word.document.macroEnabled.12"),
    ".dotx": ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.template"),
    ".dotm": ("docx", "application/vnd.ms-word.template.macroEnabled.12"),
    ".xlsm": ("xlsx", "application/vnd.ms-excel.sheet.macroEnabled.12"),
    ".xltx": ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.template"),
    ".xltm": ("xlsx", "application/vnd.ms-excel.template.macroEnabled.12"),
    ".pptm": ("pptx", "application/vnd.ms-powerpoint.presentation.macroEnabled.12"),
    ".ppsx": ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.slideshow"),
    ".ppsm": ("pptx", "application/vnd.ms-powerpoint.slideshow.macroEnabled.12"),
    ".potx": ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.template"),
    ".potm": ("pptx", "application/vnd.ms-powerpoint.template.macroEnabled.12"),
    ".png": ("png", "image/png"),
    ".jpg": ("jpg", "image/jpeg"), ".jpeg": ("jpg", "image/jpeg"),
    ".tif": ("tiff", "image/tiff"), ".tiff": ("tiff", "image/tiff"),
    ".eml": ("eml", "message/rfc822"),
    ".msg": ("msg", "application/vnd.ms-outlook"),
}
KINDS = tuple(dict.fromkeys(kind for kind, _ in SUPPORTED.values()))
# Kinds that are ZIPs of XML (Office Open XML): their bytes start as a ZIP's do
ZIP_KINDS = frozenset({"docx", "xlsx", "pptx"})
# Images (read by OCR): their bytes start with one of these
IMAGE_MAGIC = {"png": (b"\x89PNG\r\n\x1a\n",), "jpg": (b"\xff\xd8\xff",),
               "tiff": (b"II*\x00", b"MM\x00*")}
# Outlook's .msg is an OLE compound file
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# Kinds read as text: their bytes must not start like a binary format's
TEXT_KINDS = frozenset({"html", "md", "txt", "csv", "eml"})
LABELS = {"pdf": "a PDF", "docx": "a DOCX (ZIP) document", "html": "text (HTML)",
          "md": "text (Markdown)", "txt": "text", "xlsx": "an XLSX (ZIP) workbook",
          "csv": "text (CSV)", "pptx": "a PPTX (ZIP) deck", "png": "a PNG image",
          "jpg": "a JPEG image", "tiff": "a TIFF image", "eml": "text (an e-mail)",
          "msg": "an Outlook (OLE) message"}


def document_id_for(name: str) -> str:
    """A legal document_id from a path or an outside id, stable so a re-ingest makes versions
    (here, beside the kinds, so the CLI names uploads without importing the registry)."""
    import re

    return re.sub(r"[^A-Za-z0-9._-]", "-", name).lstrip("-._")[:200] or "document"


# A job whose declared size is at least this is heavy: a client's light jobs are claimed
# before its heavy ones (registry/jobs.claim_next), so its one-line note does not queue behind
# its own 400-page PDF. 1 MiB: a page of text is ~2–4 KB, so ~300 pages of PDF or a 1 MiB
# e-mail (~1,000 chunks, about a minute of embedding here) — work a person notices waiting on.
HEAVY_BYTES = 1 << 20


def declared_size(kind: str, content: bytes) -> int:
    """What an upload declares it holds, read before any work: its bytes, or for an Office
    file (a ZIP) the larger of its bytes and what its directory says it unzips to — 900 KB of
    DOCX can declare 31 MiB of XML. A directory that cannot be read declares nothing more (the
    extraction fails it with its reason)."""
    if kind in ZIP_KINDS and content[:2] == b"PK":
        import io
        import zipfile

        try:
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                return max(len(content), sum(m.file_size for m in archive.infolist()))
        except (zipfile.BadZipFile, ValueError, OSError):
            pass
    return len(content)
