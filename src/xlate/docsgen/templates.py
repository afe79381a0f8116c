"""The theme's Jinja templates compiled by a helper process while the build loads the glossary.

Each process that writes pages (this one, and the second one of docsgen/pagecache.py) compiles every
template a page uses before its first page: about a third of a second each, and the same work twice.
At `startup` of a plain build the hook forks a helper that compiles those templates (main.html, the
static templates and everything they extend, include or import) while this process loads the glossary
on the other CPU, and sends back the compiled code. Both page-writing processes then load templates
through a bytecode cache holding it (Jinja's own mechanism: a template is only taken from the cache
when its source has the checksum it was compiled from, else it is compiled as before), so each
template is compiled once and the pages come out the same.

Like the second process, the helper runs only for a plain build, where the build can fork and has a
second CPU (not under `mkdocs serve`, not with XLATE_DOCS_JOBS=1). Anything that goes wrong in it
(a template that does not compile there, a helper that died) only means compiling here, as before.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2
from jinja2 import meta

from xlate import processes


class MemoryCache(jinja2.BytecodeCache):
    """Compiled templates by Jinja's bucket key (template name and file), kept in memory."""

    def __init__(self, blobs: dict[str, bytes] | None = None) -> None:
        self.blobs: dict[str, bytes] = dict(blobs or {})

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        blob = self.blobs.get(bucket.key)
        if blob is not None:
            bucket.bytecode_from_string(blob)  # checks the source's checksum; a mismatch leaves it empty

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.blobs[bucket.key] = bucket.bytecode_to_string()


def compile_all(env: jinja2.Environment, roots: list[str]) -> dict[str, bytes]:
    """Compile the roots and every template they name literally in extends, include or import
    (transitively), each as Jinja's loader would, into a fresh memory cache; what the cache then holds."""
    cache = MemoryCache()
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            source, filename, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
            tree = env.parse(source, name, filename)
            # What BaseLoader.load does with a bytecode cache, from the tree parsed once (for its names too).
            bucket = cache.get_bucket(env, name, filename, source)
            bucket.code = env.compile(tree, name, filename)
            cache.set_bucket(bucket)
        except Exception:  # noqa: BLE001 - not found or not compilable here: compiled where it is used
            continue
        todo += [n for n in meta.find_referenced_templates(tree) if n is not None and n not in seen]
    return cache.blobs


class Helper:
    """A forked helper compiling templates; `take` waits for what it sends (empty if it failed)."""

    def __init__(self, copy: processes.Copy[dict[str, bytes]] | None) -> None:
        self.copy = copy

    def take(self) -> dict[str, bytes]:
        copy, self.copy = self.copy, None
        if copy is None:
            return {}
        got = copy.result(dict)  # the helper failed: templates compile where they are used
        return got if isinstance(got, dict) else {}


def _compile_for(config: Any) -> dict[str, bytes]:
    return compile_all(config.theme.get_env(), ["main.html", *config.theme.static_templates])


def start(config: Any) -> Helper | None:
    """Fork a helper that compiles the templates a build of this config uses (None where it cannot fork)."""
    copy = processes.start_copy(functools.partial(_compile_for, config))
    return Helper(copy) if copy is not None else None


def install(env: jinja2.Environment, blobs: dict[str, bytes] | None) -> None:
    """Templates of `env` from here on load through a cache holding `blobs` (where it has none yet)."""
    if blobs and env.bytecode_cache is None:
        env.bytecode_cache = MemoryCache(blobs)
