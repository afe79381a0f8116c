"""No cyclic garbage collection while mkdocs builds the site, for a plain `mkdocs build`.

A build allocates millions of objects that live until it ends (the glossary, every page's Markdown, HTML
and search entries) and makes almost no reference cycles worth reclaiming, so Python's collector
mostly walks live objects again and again: about half a second of a build. The hook pauses it at
`startup` (only for `mkdocs build`: `mkdocs serve` rebuilds in one long-lived process, where cycles do
add up) and resumes it when the build ends. A forked copy of the build (docsgen/parallel.py) inherits
the pause and ends with the build.

Resuming after a finished build first freezes what is alive (gc.freeze): those objects are the site
just written, reclaimed when the interpreter exits, and the collector need not walk them once more
on the way out. After a failed build the collector simply runs again.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass


@dataclass
class Pause:
    was_enabled: bool


def pause() -> Pause:
    """Stop automatic collection; what `resume` needs to put it back as it was."""
    state = Pause(gc.isenabled())
    gc.disable()
    return state


def resume(state: Pause | None, keep: bool) -> None:
    """Collection back as it was before `pause`; keep: move every live object out of the collector's
    sight first (a finished build's objects, alive until exit). No-op without a pause."""
    if state is None:
        return
    if keep:
        gc.freeze()
    if state.was_enabled:
        gc.enable()
