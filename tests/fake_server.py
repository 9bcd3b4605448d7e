"""`python -m tests.fake_server PORT`: `evidence serve` as it runs in production — settings from
the environment, the embedded worker in the process — but with the fake models (a slow dense
model if EVIDENCE_TEST_BATCH_DELAY_S is set), for tests that kill and restart a real process."""

from __future__ import annotations

import os
import sys

import uvicorn

from app.main import create_app
from app.runtime import build_runtime
from app.settings import get_settings
from tests.fakes import FakeDense, fake_models


def main() -> None:
    settings = get_settings()
    delay = float(os.environ.get("EVIDENCE_TEST_BATCH_DELAY_S", "0"))
    runtime = build_runtime(settings, models=fake_models(FakeDense(batch_delay_s=delay)))
    app = create_app(settings, runtime=runtime, start_worker=True)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")


if __name__ == "__main__":
    main()
