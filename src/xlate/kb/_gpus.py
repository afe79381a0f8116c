"""The one resolver of a GPU's name: every surface that names a GPU (lookup, `compare`, the kernel
runner's roofline, the rules' limits) resolves it here, so a spelling that works in one works in all.
The sheets come from the compiled index; where the index cannot be built because the validation stack
is not installed (the machine that runs kernels has no pydantic), the sheets are read from their YAML
unvalidated, into the same objects, and resolved by the same table.

Standard library only at import: the runner and a cold explain import this module.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from xlate.kb._sheets import GPU_FIGURES, GpuFigure, GpuSheet, decode, gpu_key, name_table, sheet_card

if TYPE_CHECKING:
    from xlate.kb._index import Index

__all__ = ["GPU_FIGURES", "GpuFigure", "GpuSheet", "gpu_key", "gpu_sheets", "gpu_suggestions", "name_table",
           "resolve_gpu", "sheet_card"]


_MEMO: dict[tuple[str, str], tuple[dict[str, GpuSheet], dict[str, str]]] = {}


def _raw_sheets(root: Path) -> dict[str, GpuSheet]:
    """The sheets read from YAML without validation: only where the index cannot be built."""
    import yaml

    from xlate.kb._paths import display_path

    out: dict[str, GpuSheet] = {}
    folder = root / "gpus"
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue
        if isinstance(data, dict):
            gid = str(data.get("id") or path.stem)
            out.setdefault(gid, decode(gid, {**data, "path": display_path(path, root)}))
    return out


def _loaded(root: Path | None, given: Index | None = None) -> tuple[dict[str, GpuSheet], dict[str, str]]:
    from xlate.kb._index import load_index
    from xlate.kb._paths import glossary_root

    root = root or glossary_root()
    try:
        index = given if given is not None else load_index(root)
    except ImportError:
        # No pydantic here (the kernel machine): the same sheets, read unvalidated.
        key = ("raw", str(root))
        if key not in _MEMO:
            sheets = _raw_sheets(root)
            _MEMO[key] = (sheets, name_table(sheets.values()))
        return _MEMO[key]
    key = ("index", index["hash"])
    if key not in _MEMO:
        _MEMO.clear()
        sheets = {gid: decode(gid, card) for gid, card in index["gpus"].items()}
        _MEMO[key] = (sheets, index.get("gpu_names") or name_table(sheets.values()))
    return _MEMO[key]


def gpu_sheets(root: Path | None = None, *, index: Index | None = None) -> dict[str, GpuSheet]:
    """Every spec sheet by id, in file order. Raises kb.IndexBuildError when the glossary has defects.

    `index`: an index the caller already holds (saves finding the current one again)."""
    return dict(_loaded(root, index)[0])


def resolve_gpu(name: str, root: Path | None = None, *, reported: bool = False, within: bool = False,
                index: Index | None = None, suffixless: bool = False) -> GpuSheet | None:
    """The sheet a GPU name lands on, or None.

    Any spelling of a sheet (id, name, alias; case, spaces, dashes and parentheses ignored) resolves
    to it. With `reported`, the name is what a driver reports for the device ("NVIDIA H100 80GB
    HBM3"): failing an exact spelling, the sheet with the longest spelling inside it answers. With
    `within`, the text is a question that names a GPU among other words ("Mac Studio M3 Ultra", "AMD
    MI300X"): failing an exact spelling, the longest run of whole words that spells a sheet answers.
    With `suffixless`, a model number without its suffix letter ("MI355") answers the one sheet spelt
    with one more letter; the caller asks only when nothing else knows the name (MI300 is the CDNA3
    card's alias, and MI300A a product of its own).
    """
    key = gpu_key(name)
    if not key:
        return None
    sheets, table = _loaded(root, index)

    def get(k: str) -> str | None:
        g = table.get(k)
        if g is None and suffixless and k and k[-1].isdigit():
            # A model number written without its suffix letter ("MI355" for the MI355X): the one sheet
            # whose spelling is it plus one letter.
            near = {g for s, g in table.items() if len(s) == len(k) + 1 and s.startswith(k) and s[-1].isalpha()}
            g = near.pop() if len(near) == 1 else None
        return g

    gid = get(key)
    if gid is None and reported:
        inside = [(len(k), g) for k, g in table.items() if k in key]
        gid = max(inside)[1] if inside else None
    if gid is None and within:
        import re

        # A count glued to the name ("8xH100", "H100*2", "H100x8") is how many, not part of the name.
        words = [_uncounted(w) for w in re.split(r"[\s,;/()]+", name) if w]
        # A plural names the same GPU ("4 M3 Ultras", "eight H100s"): tried after the words as written.
        singular = [w[:-1] if len(w) > 2 and w.endswith("s") and not w.endswith("ss") else w for w in words]
        for candidate in (words, singular) if singular != words else (words,):
            for n in range(len(candidate), 0, -1):
                runs = (get(gpu_key(" ".join(candidate[i:i + n]))) for i in range(len(candidate) - n + 1))
                gid = next((g for g in runs if g), None)
                if gid:
                    break
            if gid:
                break
    return sheets.get(gid) if gid else None


# "8xH100", "2*MI300X", "H100*2", "H100x8": a count before the name, or after a name that ends in a
# digit (so the suffix letter of "MI300X" is never read as "times").
_COUNTED = re.compile(r"^(?:\d+[x×*](?P<after>[A-Za-z].*)|(?P<before>.*\d)[x×*]\d+)$", re.I)


def _uncounted(word: str) -> str:
    """A word without a count glued to it."""
    found = _COUNTED.match(word)
    return (found.group("after") or found.group("before")) if found else word


def gpu_suggestions(name: str, root: Path | None = None, limit: int = 4) -> list[str]:
    """Sheet ids nearest to a name that resolved to none."""
    from rapidfuzz import fuzz, process

    sheets = _loaded(root)[0]
    choices = {gid: " ".join(s.spellings()) for gid, s in sheets.items()}
    found = process.extract(name, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=40)
    return [gid for _, _, gid in found]
