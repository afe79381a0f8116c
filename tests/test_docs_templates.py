"""The theme's templates compiled once by a helper: the same output from the cached code, a changed
source compiled again, a template that does not compile left to the build."""

from __future__ import annotations

import jinja2
import pytest

from xlate.docsgen import templates

_THEME = {
    "main.html": '{% extends "base.html" %}{% block body %}[{{ page }}]{% include "partials/nav.html" %}{% endblock %}',
    "base.html": '{% import "partials/macros.html" as m %}<html>{{ m.hello(page) }}{% block body %}{% endblock %}</html>',
    "partials/macros.html": "{% macro hello(x) %}hello {{ x | upper }}{% endmacro %}",
    "partials/nav.html": "<nav>{% for i in items %}{{ i }}{% endfor %}{% include name %}</nav>",
    "partials/late.html": "late",
    "broken.html": "{% if %}",
    "unused.html": "never named",
}


def _env(sources: dict[str, str]) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.DictLoader(sources))


def test_the_cached_code_renders_what_compiling_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    blobs = templates.compile_all(_env(_THEME), ["main.html", "broken.html", "missing.html"])
    # Every template named literally from main.html, not the one named at run time, the broken or the unused one.
    assert len(blobs) == 4
    fresh = _env(_THEME)
    want = fresh.get_template("main.html").render(page="p", items=[1, 2], name="partials/late.html")
    cached = _env(_THEME)
    templates.install(cached, blobs)
    compiled: list[str] = []
    real = cached.compile
    monkeypatch.setattr(cached, "compile", lambda source, name=None, *a, **k: compiled.append(name) or real(source, name, *a, **k))
    got = cached.get_template("main.html").render(page="p", items=[1, 2], name="partials/late.html")
    assert got == want == "<html>hello P[p]<nav>12late</nav></html>"
    assert compiled == ["partials/late.html"]  # only the one no literal name reaches


def test_a_changed_source_is_compiled_again() -> None:
    blobs = templates.compile_all(_env(_THEME), ["main.html"])
    changed = {**_THEME, "partials/macros.html": "{% macro hello(x) %}bye {{ x }}{% endmacro %}"}
    env = _env(changed)
    templates.install(env, blobs)
    assert env.get_template("main.html").render(page="p", items=[], name="partials/late.html") == "<html>bye p[p]<nav>late</nav></html>"


def test_install_keeps_a_cache_the_environment_has() -> None:
    env = _env(_THEME)
    own = templates.MemoryCache()
    env.bytecode_cache = own
    templates.install(env, {"k": b"x"})
    assert env.bytecode_cache is own
    bare = _env(_THEME)
    templates.install(bare, {})
    assert bare.bytecode_cache is None
