"""Model profiles, the installed-models manifest, installation and loading."""
