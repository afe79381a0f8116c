"""JSON Schema export of the glossary models, for editors and for `glossary check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = "schema.json"
SCHEMA_COMMENT = "# yaml-language-server: $schema=../schema.json"


def glossary_schema() -> dict[str, Any]:
    """One schema for every glossary YAML file: a concept or a GPU spec sheet."""
    # Imported here: the constants above are read by code (and tests) that must not need pydantic.
    from pydantic.json_schema import models_json_schema

    from xlate.model import Concept, GpuSpec

    _, defs = models_json_schema([(Concept, "validation"), (GpuSpec, "validation")], ref_template="#/$defs/{model}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://xlate.dev/glossary/schema.json",
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
    path = root / SCHEMA_FILE
    path.write_text(render(), encoding="utf-8")
    return path
