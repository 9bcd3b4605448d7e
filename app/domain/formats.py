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
