"""The public Python client of the Evidence Search API (import name ``evidence_client``, which
no application's own ``app`` can shadow).

    from evidence_client import EvidenceClient

    with EvidenceClient("http://127.0.0.1:8000", api_key="evs_…") as client:
        job = client.upload("handbook.pdf", metadata={"team": "hr"})
        client.wait_for_job(job["job_id"])
        answer = client.search("how many holidays do I get", limit=5)

Answers are the API's own JSON (dicts shaped as openapi.json says), so nothing here can drift
from the server; errors are one exception type, EvidenceError, with the stable code, the HTTP
status and the request id. ``AsyncEvidenceClient`` is the same with ``await``.
"""

from evidence_client.client import AsyncEvidenceClient, EvidenceClient
from evidence_client.errors import EvidenceError
from evidence_client.webhooks import verify_signature

__all__ = ["AsyncEvidenceClient", "EvidenceClient", "EvidenceError", "verify_signature"]
