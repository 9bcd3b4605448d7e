"""Schemathesis hooks for tests/api/test_schemathesis.py (loaded through SCHEMATHESIS_HOOKS).

positive_data_acceptance runs on every operation. It would report refusals the server
documents that JSON Schema cannot say, so those — and nothing wider — are dropped, each by its
operation and its stable error code: an upload's file type by its extension and bytes (a
multipart part's filename and content), its ``metadata`` field (a JSON object inside a form
string), the search window (offset + limit ≤ 200, a bound across two fields), as_of with
versions "all", a filter value that its key does not hold, and an entity page's cursor that
the service never gave, a webhook host the operator has not allowed. Any other
refusal of schema-valid data still fails the run (an id the spec allows refused, say).

negative_data_rejection runs too; dropped from it only what a multipart form cannot carry:
its fields are text, so a negative case that only changes a field's JSON type (null, a number
or an object where a string is due) reaches the server as text the spec allows — "null",
"0.0", "{}" — and schemathesis then calls a valid upload schema-violating (its own message says
"positive test case", or names only `type` violations).
"""

from __future__ import annotations

import json
import re
from typing import Any

import schemathesis

UNSAYABLE = {
    "POST /documents": {"UNSUPPORTED_FILE_TYPE", "FILE_CONTENT_MISMATCH", "EMPTY_FILE",
                        "INVALID_METADATA"},
    "POST /search": {"WINDOW_TOO_LARGE",  # offset + limit ≤ 200
                     # sort orders a browse (query "" or "*"), changed_only needs words: rules
                     # across two fields
                     "INVALID_SORT", "INVALID_BROWSE",
                     "INVALID_VERSIONS",  # as_of picks the versions: not with versions "all"
                     # a filter value the key does not hold (a kind that does not exist, a
                     # range on a text key, a type discovery never saw): rules per key and per
                     # client's data. The keys' own shape is in the spec (propertyNames) and a
                     # key refused for its shape still fails the run (KEY_SHAPE below)
                     "INVALID_FILTER"},
    # a cursor is opaque: only one this service gave is valid, which no schema can say (its
    # alphabet and length are in the spec)
    "GET /entities": {"INVALID_CURSOR"},
    # where webhooks may go is the operator's list (EVIDENCE_WATCH__WEBHOOK_HOSTS), not the
    # spec's; a URL's port out of range or a user in it are refused by rules a pattern cannot
    # state plainly; a watch's filters are checked as a search's
    "POST /watches": {"WEBHOOK_HOST_NOT_ALLOWED", "WEBHOOK_URL_INVALID", "INVALID_FILTER"},
    # a judgment names its document or its chunk, one of the two (both fields are optional)
    "POST /judgments": {"INVALID_JUDGMENT"},
    # whether a version has pages is its file's kind (a Markdown file has none); whether a
    # stored file can be drawn, the file's
    "GET /documents/{document_id}/versions/{version_id}/pages/{page}.png": {
        "NOT_PAGED", "PAGE_UNREADABLE"},
    # a source's fields by its kind (a folder names its path; a mailbox its host, user and
    # password), whether a path is a folder on the server, whether a host is one
    "POST /sources": {"MISSING_FIELD", "SOURCE_PATH_NOT_FOUND", "INVALID_REQUEST"},
    # a day the pattern allows and the calendar does not (2026-02-30T00:00Z, year 0000)
    "GET /audit": {"INVALID_INSTANT"},
    # a batch's first query is searched at once: what the search refuses of the shared body
    # (as for POST /search) is the batch's refusal; the results bound is the operator's setting
    "POST /searches/batch": {"INVALID_FILTER", "INVALID_VERSIONS", "BATCH_RESULTS_LIMIT",
                             "BATCH_TOO_LARGE"},
    # an uploaded list's lines and the options field's JSON are in no schema (a text file, a
    # form string), and the options carry the same search rules
    "POST /searches/batch/upload": {"BATCH_EMPTY", "BATCH_TOO_LARGE", "INVALID_QUERY_LIST",
                                    "INVALID_BATCH_OPTIONS", "INVALID_FILTER",
                                    "INVALID_VERSIONS", "BATCH_RESULTS_LIMIT"},
}
KEY_SHAPE = ("is not a key", "unknown group")
MULTIPART = {"POST /documents", "POST /searches/batch/upload"}


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    if getattr(failure, "code", None) == "ST201":  # "schema-violating request accepted"
        message = str(failure.message)
        violations = re.findall(r"violates `(\w+)`", message)
        text_alike = "positive test case" in message or "Incorrect type" in message or (
            violations and set(violations) == {"type"})
        return not (operation in MULTIPART and text_alike)
    if getattr(failure, "code", None) != "ST202":  # "schema-valid request rejected"
        return True
    try:
        code = json.loads(response.content)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return True
    if code == "INVALID_FILTER" and any(m in response.text for m in KEY_SHAPE):
        return True
    return code not in UNSAYABLE.get(operation, set())
