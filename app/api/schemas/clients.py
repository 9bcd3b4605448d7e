"""The calling client: keys, discovery, its metadata catalog."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.domain.access import GROUP_PATTERN, MAX_GROUPS


class KeyRequest(BaseModel):
    """POST /clients/me/keys."""

    model_config = ConfigDict(extra="forbid", strict=True)
    groups: list[Annotated[str, Field(pattern=GROUP_PATTERN)]] | None = Field(
        None, max_length=MAX_GROUPS, description=(
            "The access groups the key sees (besides unrestricted documents); null: an admin "
            "key, it sees every document of the client"))
    delegate: bool = Field(False, description=(
        "It may narrow a request to the groups of the person it serves (X-Evidence-Groups)"))


class KeyIssued(BaseModel):
    key: str = Field(description="The API key, shown once")
    groups: list[str] | None
    delegate: bool


class DiscoveryState(BaseModel):
    state: Literal["disabled", "discovering", "ready"]
    progress: float
    indexed_versions: int
    published_versions: int


class ClientOut(BaseModel):
    id: str
    name: str
    publication_authority: str
    metadata_discovery: DiscoveryState | None = Field(description=(
        "null for a key with access groups: its counts are the whole client's"))
    access_groups: list[str] | None = Field(None, description=(
        "The groups this request runs with (the key's, narrowed by X-Evidence-Groups); null: "
        "an admin key, every document of the client"))


class DiscoverySwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    enabled: bool


class MetadataKey(BaseModel):
    key: str
    type: str
    count: int


class MetadataCatalog(DiscoveryState):
    keys: list[MetadataKey]
