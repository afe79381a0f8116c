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
    "collect_row_claims": ("_claims", "collect_rows"),
    "claim_shares": ("_claims", "shares"),
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
    "content_hash": ("_paths", "content_hash"),
    "example_links": ("_index", "example_links"),
    "find_rows": ("_index", "find_rows"),
    "load_index": ("_index", "load_index"),
    "match_json": ("_index", "match_json"),
    "search": ("_index", "search"),
    "suggestions": ("_index", "suggestions"),
    "vocabulary_entry": ("_index", "vocabulary_entry"),
    "name_family": ("_index", "name_family"),
    "option_entries": ("_index", "option_entries"),
    "option_asked": ("_index", "option_asked"),
    "error_message": ("_index", "error_message"),
    "message_key": ("_index", "message_key"),
    "row_slip": ("_index", "row_slip"),
    "PackageVocabulary": ("_vocabulary", "PackageVocabulary"),
    "NameFamily": ("_vocabulary", "NameFamily"),
    "NameList": ("_vocabulary", "NameList"),
    "VocabularyEntry": ("_vocabulary", "VocabularyEntry"),
    "vocabulary_entries": ("_vocabulary", "entries"),
    "vocabulary_spelling": ("_vocabulary", "spelling"),
    "Category": ("_model", "Category"),
    "Concept": ("_model", "Concept"),
    "Figure": ("_model", "Figure"),
    "GpuSpec": ("_model", "GpuSpec"),
    "MappingRelation": ("_model", "MappingRelation"),
    "REQUIRED_BACKENDS": ("_model", "REQUIRED_BACKENDS"),
    "REVERSE_LABEL": ("_model", "REVERSE_LABEL"),
    "SYMMETRIC_EDGES": ("_model", "SYMMETRIC_EDGES"),
    "Term": ("_model", "Term"),
    "concept_lints": ("_proofs", "concept_lints"),
    "concept_metal_problems": ("_proofs", "concept_metal_problems"),
    "concept_package_problems": ("_proofs", "concept_package_problems"),
    "cuda_layouts": ("_proofs", "cuda_layouts"),
    "declared_names": ("_proofs", "declared_names"),
    "declared_outside_path": ("_proofs", "declared_outside_path"),
    "declared_outside_problems": ("_proofs", "declared_outside_problems"),
    "load_declared_outside": ("_proofs", "load_declared_outside"),
    "outside_library": ("_proofs", "outside_library"),
    "table_spellings": ("_proofs", "table_spellings"),
    "version_facts": ("_proofs", "version_facts"),
    "hip_sides": ("_proofs", "hip_sides"),
    "load_msl_table": ("_proofs", "load_msl"),
    "load_msl_attested": ("_proofs", "load_msl_attested"),
    "metal_side_names": ("_proofs", "metal_side_names"),
    "msl_attested_path": ("_proofs", "msl_attested_path"),
    "msl_attested_problems": ("_proofs", "attested_problems"),
    "MslEntry": ("_proofs", "MslEntry"),
    "metal_side_problems": ("_proofs", "metal_problems"),
    "package_side_problems": ("_proofs", "package_problems"),
    "probe_hip_sides": ("_proofs", "probe_hip"),
    "row_lints": ("_proofs", "row_lints"),
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
    "RocmFact": ("_types", "RocmFact"),
    "FamilyRule": ("_symbols", "FamilyRule"),
    "LAUNCH": ("_symbols", "LAUNCH"),
    "SymbolMap": ("_symbols", "SymbolMap"),
    "load_symbols": ("_symbols", "load"),
    "load_translate_data": ("_translate_data", "load_translate_data"),
    "translate_data": ("_translate_data", "translate_data"),
    "translate_data_path": ("_translate_data", "translate_data_path"),
    "translate_snippet": ("_translate_data", "translate_snippet"),
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

__all__ = [  # every key of _EXPORTS (tests/test_kb_boundary.py checks they agree)
    "BACKENDS", "Category", "Claim", "Concept", "ConceptCard", "Edge", "Entry", "FamilyRule", "Figure",
    "GPU_FIGURES", "Glossary", "GpuFigure", "GpuSheet", "GpuSpec", "HipifyImportError", "Index",
    "IndexBuildError", "LAUNCH", "LoadedYaml", "MappingRelation", "Match", "MslEntry", "Problem", "REQUIRED_BACKENDS",
    "REVERSE_LABEL", "ROW_SIDES", "RocmFact", "Row", "SCHEMA_COMMENT", "SCHEMA_FILE", "SCORE_LOOSE",
    "SCORE_NAME", "SCORE_SYMBOL", "SIDE_BACKEND", "SYMMETRIC_EDGES", "Side", "SymbolMap", "Term", "TermCard",
    "YamlError", "add_edge_to_file", "cache_dir", "categories_in_use", "claim_sentences", "claim_shares",
    "clean_query", "collect_claims", "collect_problems", "collect_row_claims", "concept_lints",
    "concept_metal_problems", "concept_package_problems", "content_hash", "cuda_layouts", "declared_names", "declared_outside_path",
    "declared_outside_problems", "display_path",
    "example_links", "find_rows", "fix_edges", "glossary_root", "gpu_files", "gpu_key", "gpu_sheets",
    "gpu_suggestions", "hip_sides", "import_hipify_tables", "is_checkable_claim", "load_families",
    "load_declared_outside", "load_glossary", "load_index", "load_msl_attested", "load_msl_table", "load_symbols", "load_translate_data", "load_yaml",
    "match_json", "metal_side_names", "metal_side_problems", "missing_mirrors", "msl_attested_path",
    "msl_attested_problems", "outside_library", "package_side_problems", "probe_hip_sides",
    "relation_path", "repo_root", "require_glossary", "resolve_gpu", "row_lints", "run_check", "run_claims",
    "schema_is_current", "search", "side_json", "sides_json", "suggestions", "table_spellings", "translate_data",
    "translate_data_path", "translate_snippet", "validation_problems", "version_facts", "vocabulary_entries",
    "vocabulary_entry", "vocabulary_spelling", "write_schema", "PackageVocabulary", "name_family", "NameFamily",
    "VocabularyEntry", "option_entries", "error_message", "message_key", "NameList", "row_slip", "option_asked",
]

if TYPE_CHECKING:  # the same names for type checkers (explicit re-exports)
    from xlate.kb._api import (
        load as load_families,
    )
    from xlate.kb._checks import (
        collect as collect_problems,
        run_check as run_check,
    )
    from xlate.kb._claims import (
        Claim as Claim,
        sentences as claim_sentences,
        shares as claim_shares,
        collect as collect_claims,
        collect_rows as collect_row_claims,
        is_checkable as is_checkable_claim,
        run as run_claims,
    )
    from xlate.kb._edges import (
        add_edge_to_file as add_edge_to_file,
        fix_edges as fix_edges,
        missing_mirrors as missing_mirrors,
    )
    from xlate.kb._glossary import (
        Glossary as Glossary,
        categories_in_use as categories_in_use,
        gpu_files as gpu_files,
        load as load_glossary,
    )
    from xlate.kb._gpus import (
        GPU_FIGURES as GPU_FIGURES,
        GpuFigure as GpuFigure,
        GpuSheet as GpuSheet,
        gpu_key as gpu_key,
        gpu_sheets as gpu_sheets,
        gpu_suggestions as gpu_suggestions,
        resolve_gpu as resolve_gpu,
    )
    from xlate.kb._graph import (
        relation_path as relation_path,
    )
    from xlate.kb._hipify_import import (
        ImportError_ as HipifyImportError,
        import_tables as import_hipify_tables,
    )
    from xlate.kb._index import (
        Index as Index,
        IndexError_ as IndexBuildError,
        Match as Match,
        SCORE_LOOSE as SCORE_LOOSE,
        SCORE_NAME as SCORE_NAME,
        SCORE_SYMBOL as SCORE_SYMBOL,
        clean_query as clean_query,
        example_links as example_links,
        find_rows as find_rows,
        load_index as load_index,
        match_json as match_json,
        search as search,
        suggestions as suggestions,
        vocabulary_entry as vocabulary_entry,
        name_family as name_family,
        option_entries as option_entries,
        option_asked as option_asked,
        error_message as error_message,
        message_key as message_key,
        row_slip as row_slip,
    )
    from xlate.kb._vocabulary import (
        NameFamily as NameFamily,
    )
    from xlate.kb._vocabulary import (
        NameList as NameList,
    )
    from xlate.kb._vocabulary import (
        VocabularyEntry as VocabularyEntry,
    )
    from xlate.kb._vocabulary import (
        PackageVocabulary as PackageVocabulary,
    )
    from xlate.kb._vocabulary import (
        entries as vocabulary_entries,
    )
    from xlate.kb._vocabulary import (
        spelling as vocabulary_spelling,
    )
    from xlate.kb._model import (
        Category as Category,
        Concept as Concept,
        Figure as Figure,
        GpuSpec as GpuSpec,
        MappingRelation as MappingRelation,
        REQUIRED_BACKENDS as REQUIRED_BACKENDS,
        REVERSE_LABEL as REVERSE_LABEL,
        SYMMETRIC_EDGES as SYMMETRIC_EDGES,
        Term as Term,
    )
    from xlate.kb._paths import (
        cache_dir as cache_dir,
        content_hash as content_hash,
        display_path as display_path,
        glossary_root as glossary_root,
        repo_root as repo_root,
        require_glossary as require_glossary,
    )
    from xlate.kb._proofs import (
        concept_lints as concept_lints,
        concept_metal_problems as concept_metal_problems,
        concept_package_problems as concept_package_problems,
        cuda_layouts as cuda_layouts,
        declared_names as declared_names,
        declared_outside_path as declared_outside_path,
        declared_outside_problems as declared_outside_problems,
        load_declared_outside as load_declared_outside,
        outside_library as outside_library,
        table_spellings as table_spellings,
        version_facts as version_facts,
        hip_sides as hip_sides,
        load_msl as load_msl_table,
        load_msl_attested as load_msl_attested,
        metal_side_names as metal_side_names,
        msl_attested_path as msl_attested_path,
        attested_problems as msl_attested_problems,
        MslEntry as MslEntry,
        metal_problems as metal_side_problems,
        package_problems as package_side_problems,
        probe_hip as probe_hip_sides,
        row_lints as row_lints,
    )
    from xlate.kb._schema import (
        SCHEMA_COMMENT as SCHEMA_COMMENT,
        SCHEMA_FILE as SCHEMA_FILE,
        is_current as schema_is_current,
        write as write_schema,
    )
    from xlate.kb._symbols import (
        Entry as Entry,
        FamilyRule as FamilyRule,
        LAUNCH as LAUNCH,
        SymbolMap as SymbolMap,
        load as load_symbols,
    )
    from xlate.kb._translate_data import (
        load_translate_data as load_translate_data,
        translate_data as translate_data,
        translate_data_path as translate_data_path,
        translate_snippet as translate_snippet,
    )
    from xlate.kb._types import (
        BACKENDS as BACKENDS,
        ConceptCard as ConceptCard,
        Edge as Edge,
        ROW_SIDES as ROW_SIDES,
        RocmFact as RocmFact,
        Row as Row,
        SIDE_BACKEND as SIDE_BACKEND,
        Side as Side,
        TermCard as TermCard,
        side_json as side_json,
        sides_json as sides_json,
    )
    from xlate.kb._yamlio import (
        LoadedYaml as LoadedYaml,
        Problem as Problem,
        YamlError as YamlError,
        load_yaml as load_yaml,
        validation_problems as validation_problems,
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
