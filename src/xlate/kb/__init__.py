"""The knowledge base: the only way into `glossary/`.

Everything that reads the glossary (lookup, explain, translate, the rules, the language server,
`compare`, `path`, the docs and the kernel runner) goes through the names exported here. The modules
behind them are private (`_index`, `_glossary`, ...): one root resolver (`glossary_root`), one YAML
reader, the pydantic models of every file, the compile step that turns them into one cached index, and
the readers of that index.

Names are resolved on first use (PEP 562), so a command that only needs the compiled index (a cold
`explain`) never imports pydantic or networkx.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# public name -> (private module, name in it)
_EXPORTS: dict[str, tuple[str, str]] = {
    "load_families": ("_api", "load"),
    "collect_problems": ("_checks", "collect"),
    "run_check": ("_checks", "run_check"),
    "Claim": ("_claims", "Claim"),
    "claim_sentences": ("_claims", "sentences"),
    "collect_claims": ("_claims", "collect"),
    "is_checkable_claim": ("_claims", "is_checkable"),
    "run_claims": ("_claims", "run"),
    "add_edge_to_file": ("_edges", "add_edge_to_file"),
    "fix_edges": ("_edges", "fix_edges"),
    "missing_mirrors": ("_edges", "missing_mirrors"),
    "relation_path": ("_graph", "relation_path"),
    "Glossary": ("_glossary", "Glossary"),
    "categories_in_use": ("_glossary", "categories_in_use"),
    "gpu_files": ("_glossary", "gpu_files"),
    "load_glossary": ("_glossary", "load"),
    "GPU_FIGURES": ("_gpus", "GPU_FIGURES"),
    "GpuFigure": ("_gpus", "GpuFigure"),
    "GpuSheet": ("_gpus", "GpuSheet"),
    "gpu_key": ("_gpus", "gpu_key"),
    "gpu_sheets": ("_gpus", "gpu_sheets"),
    "gpu_suggestions": ("_gpus", "gpu_suggestions"),
    "resolve_gpu": ("_gpus", "resolve_gpu"),
    "HipifyImportError": ("_hipify_import", "ImportError_"),
    "import_hipify_tables": ("_hipify_import", "import_tables"),
    "Index": ("_index", "Index"),
    "IndexBuildError": ("_index", "IndexError_"),
    "Match": ("_index", "Match"),
    "SCORE_LOOSE": ("_index", "SCORE_LOOSE"),
    "SCORE_NAME": ("_index", "SCORE_NAME"),
    "SCORE_SYMBOL": ("_index", "SCORE_SYMBOL"),
    "clean_query": ("_index", "clean_query"),
    "content_hash": ("_index", "content_hash"),
    "example_links": ("_index", "example_links"),
    "find_rows": ("_index", "find_rows"),
    "load_index": ("_index", "load_index"),
    "match_json": ("_index", "match_json"),
    "search": ("_index", "search"),
    "suggestions": ("_index", "suggestions"),
    "Category": ("_model", "Category"),
    "Concept": ("_model", "Concept"),
    "Figure": ("_model", "Figure"),
    "GpuSpec": ("_model", "GpuSpec"),
    "MappingRelation": ("_model", "MappingRelation"),
    "REQUIRED_BACKENDS": ("_model", "REQUIRED_BACKENDS"),
    "REVERSE_LABEL": ("_model", "REVERSE_LABEL"),
    "SYMMETRIC_EDGES": ("_model", "SYMMETRIC_EDGES"),
    "Term": ("_model", "Term"),
    "cache_dir": ("_paths", "cache_dir"),
    "display_path": ("_paths", "display_path"),
    "glossary_root": ("_paths", "glossary_root"),
    "repo_root": ("_paths", "repo_root"),
    "require_glossary": ("_paths", "require_glossary"),
    "SCHEMA_COMMENT": ("_schema", "SCHEMA_COMMENT"),
    "SCHEMA_FILE": ("_schema", "SCHEMA_FILE"),
    "schema_is_current": ("_schema", "is_current"),
    "write_schema": ("_schema", "write"),
    "Entry": ("_symbols", "Entry"),
    "FamilyRule": ("_symbols", "FamilyRule"),
    "LAUNCH": ("_symbols", "LAUNCH"),
    "SymbolMap": ("_symbols", "SymbolMap"),
    "load_symbols": ("_symbols", "load"),
    "load_translate_data": ("_translate_data", "load_translate_data"),
    "translate_data": ("_translate_data", "translate_data"),
    "translate_data_path": ("_translate_data", "translate_data_path"),
    "BACKENDS": ("_types", "BACKENDS"),
    "ConceptCard": ("_types", "ConceptCard"),
    "Edge": ("_types", "Edge"),
    "TermCard": ("_types", "TermCard"),
    "ROW_SIDES": ("_types", "ROW_SIDES"),
    "Row": ("_types", "Row"),
    "SIDE_BACKEND": ("_types", "SIDE_BACKEND"),
    "Side": ("_types", "Side"),
    "side_json": ("_types", "side_json"),
    "sides_json": ("_types", "sides_json"),
    "LoadedYaml": ("_yamlio", "LoadedYaml"),
    "Problem": ("_yamlio", "Problem"),
    "YamlError": ("_yamlio", "YamlError"),
    "load_yaml": ("_yamlio", "load_yaml"),
    "validation_problems": ("_yamlio", "validation_problems"),
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from xlate.kb._api import load as load_families
    from xlate.kb._checks import collect as collect_problems
    from xlate.kb._checks import run_check
    from xlate.kb._claims import Claim
    from xlate.kb._claims import collect as collect_claims
    from xlate.kb._claims import is_checkable as is_checkable_claim
    from xlate.kb._claims import run as run_claims
    from xlate.kb._claims import sentences as claim_sentences
    from xlate.kb._edges import add_edge_to_file, fix_edges, missing_mirrors
    from xlate.kb._glossary import Glossary, categories_in_use, gpu_files
    from xlate.kb._glossary import load as load_glossary
    from xlate.kb._gpus import (
        GPU_FIGURES,
        GpuFigure,
        GpuSheet,
        gpu_key,
        gpu_sheets,
        gpu_suggestions,
        resolve_gpu,
    )
    from xlate.kb._graph import relation_path
    from xlate.kb._hipify_import import ImportError_ as HipifyImportError
    from xlate.kb._hipify_import import import_tables as import_hipify_tables
    from xlate.kb._index import (
        SCORE_LOOSE,
        SCORE_NAME,
        SCORE_SYMBOL,
        Index,
        Match,
        clean_query,
        content_hash,
        example_links,
        find_rows,
        load_index,
        match_json,
        search,
        suggestions,
    )
    from xlate.kb._index import IndexError_ as IndexBuildError
    from xlate.kb._model import (
        REQUIRED_BACKENDS,
        REVERSE_LABEL,
        SYMMETRIC_EDGES,
        Category,
        Concept,
        Figure,
        GpuSpec,
        MappingRelation,
        Term,
    )
    from xlate.kb._paths import (
        cache_dir,
        display_path,
        glossary_root,
        repo_root,
        require_glossary,
    )
    from xlate.kb._schema import SCHEMA_COMMENT, SCHEMA_FILE
    from xlate.kb._schema import is_current as schema_is_current
    from xlate.kb._schema import write as write_schema
    from xlate.kb._symbols import LAUNCH, Entry, FamilyRule, SymbolMap
    from xlate.kb._symbols import load as load_symbols
    from xlate.kb._translate_data import (
        load_translate_data,
        translate_data,
        translate_data_path,
    )
    from xlate.kb._types import (
        BACKENDS,
        ROW_SIDES,
        SIDE_BACKEND,
        Edge,
        Row,
        Side,
        side_json,
        sides_json,
    )
    from xlate.kb._yamlio import (
        LoadedYaml,
        Problem,
        YamlError,
        load_yaml,
        validation_problems,
    )


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'xlate.kb' has no attribute {name!r}") from None
    value = getattr(import_module(f"xlate.kb.{module}"), attr)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return __all__
