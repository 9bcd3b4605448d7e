"""Judgments and calibration (issue 37)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.api.schemas.common import NOT_BLANK, JsonInteger

CHUNK_ID_PATTERN = r"^[A-Za-z0-9._-]+:v[0-9]+:[0-9]+$"


class JudgmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    query: str = Field(..., min_length=1, max_length=1000, pattern=NOT_BLANK,
                       description="The query as your users type it")
    document_id: str | None = Field(None, min_length=1, max_length=200,
                                    description="The document judged (or give chunk_id)")
    chunk_id: str | None = Field(None, max_length=300, pattern=CHUNK_ID_PATTERN,
                                 description="A chunk judged, as evidence cites it "
                                             "(doc:v2:7): its document takes the grade")
    grade: JsonInteger = Field(..., ge=0, le=3,
                               description="0 not relevant … 3 perfectly relevant")

    @property
    def target(self) -> str:
        return self.document_id or (self.chunk_id or "").split(":", 1)[0]


class JudgmentsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    items: list[JudgmentIn] = Field(..., min_length=1, max_length=500)


class JudgmentsStored(BaseModel):
    stored: int
    total: int = Field(description="The client's judgments in all")


class JudgmentOut(BaseModel):
    query: str
    document_id: str
    grade: int
    created_at: datetime


class JudgmentList(BaseModel):
    items: list[JudgmentOut]
    total: int


class SearchDefaults(BaseModel):
    alpha: float
    fusion: str
    ndcg: float | None = None


class CalibrationOut(BaseModel):
    queries: int = Field(description="Judged queries searched (those with a relevant document)")
    folds: int
    default: SearchDefaults = Field(description="The service's defaults and their nDCG@10")
    chosen: SearchDefaults = Field(description="The best configuration over every query")
    cross_validated_ndcg: float = Field(description="Each query scored by the configuration "
                                                    "the other folds chose")
    difference: float = Field(description="cross_validated − default, per query, mean")
    interval: list[float] = Field(description="Its 95 % paired bootstrap interval")
    applied: bool = Field(description="Whether the choice now decides this client's searches "
                                      "that leave alpha or fusion open")
    reason: str
    per_fold: list[str]


class CalibrationRunOut(BaseModel):
    """A calibration running in the background, or how it ended (issue 47)."""

    run_id: str
    status: Literal["running", "succeeded", "failed"]
    progress: float = Field(description="Share of its searches done, 0–1")
    searches_done: int
    searches_total: int = Field(description="Judged queries × configurations")
    created_at: datetime
    finished_at: datetime | None = None
    report: CalibrationOut | None = Field(None, description="Once succeeded: what was chosen, "
                                                            "and whether it was applied")
    error_code: str | None = None
    error: str | None = None


class CalibrationState(BaseModel):
    applied: SearchDefaults | None = Field(None, description="This client's calibrated "
                                                             "defaults; null: the service's")
    applied_at: datetime | None = None
    defaults: SearchDefaults = Field(description="The service's defaults")
    report: CalibrationOut | None = Field(None, description="The report that applied them")
    latest_run: CalibrationRunOut | None = Field(None, description="The client's latest "
                                                                   "calibration run, if any")
