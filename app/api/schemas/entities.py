"""Entity pages and e-mail threads."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

EntityGroup = Literal["persons", "organizations", "dates_times", "locations", "monetary_amounts",
                      "account_numbers", "transaction_references", "account_types",
                      "email_addresses", "phone_numbers"]


class EntityOut(BaseModel):
    value: str = Field(description="Its commonest spelling in the client's current versions "
                                   "(untrusted document text)")
    documents: int = Field(description="Documents whose current version names it")
    mentions: int = Field(description="Chunks naming it, over those versions")
    spellings: list[str] = Field(description="Every spelling grouped under it (case, spaces, "
                                             "titles; an amount, day or identifier by value)")


class EntityList(BaseModel):
    group: EntityGroup
    items: list[EntityOut]
    total: int = Field(description="Entities of the group matching q")
    next_cursor: str | None = Field(description="Pass as cursor for the next page; null: last")


class EntityDocument(BaseModel):
    document_id: str
    version_id: str = Field(description="The document's current version")
    title: str | None
    filename: str
    mentions: int = Field(description="Chunks of this version naming the entity")
    spellings: list[str] = Field(description="How this version writes it")


class EntityDocuments(BaseModel):
    group: EntityGroup
    value: str
    items: list[EntityDocument]


class ThreadMessage(BaseModel):
    document_id: str
    version_id: str = Field(description="The message's current version")
    position: int = Field(description="1 for the earliest message, in date order")
    sender: str | None = Field(None, alias="from", description="The From header (untrusted)")
    date: str | None = Field(None, description="ISO 8601, as the message says")
    subject: str | None = None
    in_reply_to: str | None = Field(None, description="The document id of the message this "
                                                      "one answers, where it is here")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class ThreadOut(BaseModel):
    thread_id: str
    messages: list[ThreadMessage]
