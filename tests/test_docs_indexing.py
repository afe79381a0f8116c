"""The docs build's shortcuts must not change what a reader gets: the search index and the pages."""

from __future__ import annotations

import markdown
import pytest

from conftest import REPO
from xlate.docsgen import diagrams, search
from xlate.docsgen.build import read_config

material_search = pytest.importorskip("material.plugins.search.plugin")


def _html(md: str) -> str:
    """Markdown rendered with the site's own extensions and their settings (as mkdocs.yml lists them)."""
    names, configs = [], {}
    for item in read_config(REPO / "mkdocs.yml")["markdown_extensions"]:
        if isinstance(item, dict):
            (name, cfg), = item.items()
            names.append(name)
            configs[name] = cfg or {}
        else:
            names.append(item)
    return markdown.Markdown(extensions=names, extension_configs=configs).convert(md)


def _sections(content: str) -> list[tuple[str | None, str, str]]:
    """What Material's indexer keeps of a page: (anchor, title, text) per section."""
    parser = material_search.Parser()
    parser.feed(content)
    parser.close()
    return [(s.id, "".join(s.title).strip(), "".join(s.text).strip()) for s in parser.data if not s.is_excluded()]


def _page() -> str:
    source = (REPO / "kernels" / "examples" / "vector-add" / "vector_add.cu").read_text(encoding="utf-8")
    code = "\n".join("    " + line if line else "" for line in source.splitlines())
    drawing = diagrams._svg(300, 100, "Warp <lanes>", [
        diagrams._box(0, 0, 140, 30, diagrams.Label("Thread block", "../a.html", False)),
        diagrams._box(0, 40, 140, 30, diagrams.Label('Lane "id" & more', "../b.html", True))])
    # Hand-written drawing markup of the kinds a drawing may hold: attributes with `>`, whitespace runs.
    spaced = ('<svg width="10" height="10" aria-label="a > b"><text>one</text>\n  <text> two  three </text>'
              "<g>\n</g><text>four\nfive</text></svg>")
    return (f"# Vector add\n\nIntro with `code` and *words*.\n\n## The code\n\n"
            f'=== "CUDA"\n\n    ``` cuda title="vector_add.cu" linenums="1" hl_lines="3"\n{code}\n    ```\n\n'
            f'=== "One line"\n\n    ``` python linenums="7"\n    x = tl.load(p + offs, mask=m)  # a < b & c\n    ```\n\n'
            f'## Related\n\n- a list item\n\n<figure class="xl-graph" markdown="0">\n{drawing}\n</figure>\n\n'
            f'<figure markdown="0">{spaced}</figure>\n\nAfter the drawing.\n')


def test_indexing_view_gives_the_same_search_sections() -> None:
    content = _html(_page())
    slim = search.for_indexing(content)
    assert slim is not None and len(slim) < len(content) / 3  # the tags really went
    assert slim.count("<span") == 1 and "<svg" not in slim  # only the title outside the code block
    assert _sections(slim) == _sections(content)
    texts = " ".join(t for _, _, t in _sections(content))
    assert "vector_add" in texts and "Thread block" in texts and "four five" in texts


def test_indexing_view_leaves_pages_it_cannot_read_plainly() -> None:
    assert search.for_indexing("<p>no code, no drawing</p>") is None
    assert search.for_indexing('<div data-search-exclude><pre><span>x</span></pre></div>') is None
    assert search.for_indexing("<svg><!-- a comment --><text>x</text></svg>") is None
    assert search.for_indexing("<svg><style>text {}</style><text>x</text></svg>") is None


@pytest.mark.slow
def test_pages_do_not_depend_on_the_symbol_rows() -> None:
    """The site is rendered from a glossary loaded without symbol rows; it must be the same site."""
    from xlate import kb
    from xlate.docsgen import build

    without = build.load_checked()
    assert not without.rows
    full = kb.load_glossary(kb.glossary_root())
    assert full.rows and not full.problems
    assert build.render(g=without) == build.render(g=full)
