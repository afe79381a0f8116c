"""JSON Schema export of the glossary models, for editors and for `glossary check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_COMMENT", "SCHEMA_FILE", "glossary_schema", "is_current", "render", "write"]

SCHEMA_FILE = "schema.json"
SCHEMA_COMMENT = "# yaml-language-server: $schema=../schema.json"


def glossary_schema() -> dict[str, Any]:
    """One schema for every glossary YAML file: a concept or a GPU spec sheet."""
    # Imported here: the constants above are read by code (and tests) that must not need pydantic.
    from pydantic.json_schema import models_json_schema

    from xlate.kb._model import Concept, GpuSpec

    _, defs = models_json_schema([(Concept, "validation"), (GpuSpec, "validation")], ref_template="#/$defs/{model}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        # No "$id": editors find the schema by the relative path on each file's first line, and an
        # absolute id would name a web address the project does not publish.
        "title": "xlate glossary file (a concept or a GPU spec sheet)",
        "oneOf": [{"$ref": "#/$defs/Concept"}, {"$ref": "#/$defs/GpuSpec"}],
        "$defs": defs["$defs"],
    }


def render() -> str:
    return json.dumps(glossary_schema(), indent=2, sort_keys=True) + "\n"


def is_current(root: Path) -> bool:
    path = root / SCHEMA_FILE
    return path.exists() and path.read_text(encoding="utf-8") == render()


def write(root: Path) -> Path:
    """Write root/schema.json; a missing or unwritable glossary folder is refused (GlossaryError)."""
    from xlate.errors import GlossaryError
    from xlate.kb._paths import require_glossary

    path = require_glossary(root) / SCHEMA_FILE
    try:
        path.write_text(render(), encoding="utf-8")
    except OSError as exc:
        raise GlossaryError(f"cannot write {path}: {exc.strerror or exc}", hint=None) from None
    return path
