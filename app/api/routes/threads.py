"""E-mail threads: GET /threads/{thread_id} (the messages of a thread, in date order). Thin: the
registry finds them (app/registry/threads.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app.api.deps import PublishingClientDep, SessionDep
from app.api.schemas import ThreadOut, error_responses
from app.documents import reads

router = APIRouter(tags=["threads"])
THREAD_ID_PATTERN = "^th-[0-9a-f]{16}$"


@router.get("/threads/{thread_id}", response_model=ThreadOut,
            responses=error_responses(401, 403, 404, 422, 500))
def get_thread(session: SessionDep, client: PublishingClientDep,
               thread_id: Annotated[str, Path(pattern=THREAD_ID_PATTERN,
                                              description="canonical_metadata.document."
                                                          "thread_id of a message")]
               ) -> ThreadOut:
    """A thread's messages in date order, with the message each answers; 404 where the
    caller has none of it (another client's threads are never seen)."""
    return ThreadOut.model_validate(reads.thread_listing(session, client.id, thread_id,
                                                        client.access))

