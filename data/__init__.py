"""The bundled data tables, installed as the package ``odds.data`` (see odds.core.data)."""
