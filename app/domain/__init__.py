"""The domain's values, pure and light: errors, bounds, file formats, metadata and its
leaves, entity values, identifiers, text normalisation. Everything imports these; they import
nothing of the service's (settings aside)."""
