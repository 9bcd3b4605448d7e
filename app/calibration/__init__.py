"""Quality per client: the statistics of comparisons (stats.py) and calibration from a
client's own judgments (service.py)."""
