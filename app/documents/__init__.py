"""Document versions as the service handles them: accepting an upload, what changed
between two versions, near duplicates, entity pages (registry and store read here; the
HTTP routes and the CLI call these)."""
