"""The `xlate` command line: thin wrappers that call into the modules that do the work.

Each command imports its module inside its body so that one command never pays for another's imports.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(
    name="xlate",
    help="Cross-vendor GPU knowledge base: CUDA, HIP/ROCm, Metal/MLX and Triton as one glossary.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
glossary_app = typer.Typer(help="Validate and maintain the glossary data.", no_args_is_help=True)
app.add_typer(glossary_app, name="glossary")
docs_app = typer.Typer(help="Generate the documentation pages and build the site.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")
kernels_app = typer.Typer(help="Build, run and verify the kernel gallery.", no_args_is_help=True)
app.add_typer(kernels_app, name="kernels")

GlossaryOption = typer.Option(None, "--glossary", help="glossary folder (default: the project's glossary/)")


def _root(path: Optional[Path]) -> Path:
    from xlate.glossary import default_root

    return path or default_root()


@app.command()
def lookup(
    query: list[str] = typer.Argument(..., help="a term, symbol or alias from any vendor: warp, LDS, simd_shuffle_down"),
    backend: Optional[str] = typer.Option(None, "--backend", "-b", help="cuda, hip, metal, triton or mlx"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
    limit: int = typer.Option(5, "--limit", "-n", help="how many matches"),
) -> None:
    """Find a concept from any vendor's vocabulary and show every backend's term for it."""
    from xlate.lookup import run

    raise typer.Exit(run(" ".join(query), backend, fmt, limit))


@glossary_app.command("check")
def glossary_check(root: Optional[Path] = GlossaryOption) -> None:
    """Validate every glossary file: schema, unique names and symbols, edges, URLs. Exit 1 on any problem."""
    from xlate.checks import run_check

    raise typer.Exit(run_check(_root(root)))


@glossary_app.command("schema")
def glossary_schema(root: Optional[Path] = GlossaryOption) -> None:
    """Write glossary/schema.json from the models (editors validate YAML against it)."""
    from xlate import schema

    path = schema.write(_root(root))
    typer.echo(f"wrote {path}")


@glossary_app.command("claims")
def glossary_claims(
    show: str = typer.Option("missing", "--show", help="missing (claims without evidence), backed or all"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
    max_missing: Optional[int] = typer.Option(None, "--max-missing", help="exit 1 if more claims than this lack evidence"),
    root: Optional[Path] = GlossaryOption,
) -> None:
    """List the non-trivial claims (numbers, versions, defaults, 'does not exist') and which carry evidence."""
    from xlate.claims import run

    if show not in ("missing", "backed", "all") or fmt not in ("text", "json"):
        typer.echo("error: --show is missing, backed or all; --format is text or json", err=True)
        raise typer.Exit(2)
    raise typer.Exit(run(_root(root), show, fmt, max_missing))


@glossary_app.command("import-hipify")
def glossary_import_hipify(
    tables: Path = typer.Argument(..., help="folder with HIPIFY's docs/tables/*.md and a PROVENANCE.md naming the source commit"),
    root: Optional[Path] = GlossaryOption,
) -> None:
    """Import AMD's HIPIFY tables into glossary/symbols/hipify/ (rerunnable; overrides.yaml is never touched)."""
    from xlate import hipify_import

    try:
        counts = hipify_import.import_tables(tables, _root(root))
    except hipify_import.ImportError_ as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    for family, n in counts.items():
        typer.echo(f"{family}: {n} rows")
    typer.echo(f"{sum(counts.values())} rows in {len(counts)} families")


@glossary_app.command("fix-edges")
def glossary_fix_edges(root: Optional[Path] = GlossaryOption) -> None:
    """Write the missing side of every one-sided see-also / contrasts-with edge."""
    from xlate import glossary as gl
    from xlate.edges import add_edge_to_file, missing_mirrors

    g = gl.load(_root(root))
    fixes = missing_mirrors(g)
    for cid, edge_type, target in fixes:
        add_edge_to_file(g.sources[cid].path, edge_type, target)
        typer.echo(f"{cid}: added {edge_type.value} {target}")
    typer.echo(f"{len(fixes)} edge(s) added")


@app.command()
def path(
    source: str = typer.Argument(..., help="a concept id or any term for it"),
    target: str = typer.Argument(..., help="a concept id or any term for it"),
    root: Optional[Path] = GlossaryOption,
) -> None:
    """Show how two concepts relate: the shortest chain of typed edges between them."""
    from xlate import glossary as gl
    from xlate import index as ix
    from xlate.edges import relation_path

    g = gl.load(_root(root))
    if g.problems:
        typer.echo(f"error: the glossary has {len(g.problems)} problem(s); run `xlate glossary check`", err=True)
        raise typer.Exit(2)
    index = ix.load_index(_root(root))
    ends = []
    for query in (source, target):
        found = ix.search(index, query, limit=1)
        if not found:
            typer.echo(f"error: no concept matches {query!r}", err=True)
            raise typer.Exit(1)
        ends.append(found[0].concept)
    steps = relation_path(g, ends[0], ends[1])
    if steps is None:
        typer.echo(f"{ends[0]} and {ends[1]} are not connected in the glossary graph")
        raise typer.Exit(1)
    if not steps:
        typer.echo(f"{ends[0]} is {ends[1]}")
        return
    for a, label, b in steps:
        typer.echo(f"{a} --{label}--> {b}")


@app.command()
def compare(
    gpus: list[str] = typer.Argument(..., help="GPU ids or names: h100 mi300x m3-ultra ..."),
    params: Optional[str] = typer.Option(None, "--params", "-p", help="model size for the derived rows: 405B, 70b, 8e9"),
    precision: str = typer.Option("bf16", "--precision", help="bf16, fp16 or fp8 (weights and peak rate)"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
    root: Optional[Path] = GlossaryOption,
) -> None:
    """Spec sheets side by side: sourced figures, ridge points, decode bounds and GPUs needed to hold a model."""
    from xlate.compare import run

    raise typer.Exit(run(gpus, params, precision, fmt, _root(root)))


@app.command()
def lsp() -> None:
    """Start the language server on stdin/stdout (hover, diagnostics, code actions, completion)."""
    from xlate.lsp import main as serve

    serve()


@docs_app.command("generate")
def docs_generate(
    root: Optional[Path] = GlossaryOption,
    out: Optional[Path] = typer.Option(None, "--out", help="folder to write into (default: build/generated-docs/)"),
) -> None:
    """Write the generated pages to a folder to read or diff them (mkdocs itself needs no generate step)."""
    from xlate.docsgen.build import DocsError, generate, repo_root

    target = out or repo_root() / "build" / "generated-docs"
    try:
        pages = generate(root, target)
    except DocsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1)
    typer.echo(f"generated {len(pages)} pages in {target}")


@docs_app.command("build")
def docs_build(
    engine: str = typer.Option("mkdocs", help="mkdocs or zensical"),
    site_dir: Optional[Path] = typer.Option(None, "--site-dir", help="output folder (default: site/)"),
) -> None:
    """Build the site (mkdocs --strict, or zensical) and say where it went."""
    from xlate.docsgen.build import DocsError, build

    try:
        pages, seconds, site = build(site_dir=site_dir, engine=engine)
    except DocsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1)
    typer.echo(f"built the site with {engine}: {pages} HTML pages in {seconds:.1f} s")
    typer.echo(f"site: {site} (open {site / 'index.html'}; search needs http: xlate docs serve)")


@docs_app.command("serve")
def docs_serve(
    addr: str = typer.Option("127.0.0.1:8000", "--dev-addr", help="address to serve on"),
) -> None:
    """Serve the site with live reload; rebuilds when docs/, glossary/ or kernels/ change."""
    from xlate.docsgen.build import DocsError, serve

    try:
        raise typer.Exit(serve(addr))
    except DocsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1)


@app.command()
def explain(
    paths: list[str] = typer.Argument(..., help="CUDA files or folders (folders are walked for .cu, .cuh and C/C++ files that use CUDA)"),
    backend: str = typer.Option("all", "--backend", "-b", help="hip, metal or all"),
    fmt: str = typer.Option("text", "--format", "-f", help="text, markdown, json or sarif"),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="exit 1 when a hazard of this severity or worse is found: warning or error"),
    include: list[str] = typer.Option([], "--include", help="only walk files matching this glob (repeatable)"),
    exclude: list[str] = typer.Option([], "--exclude", help="skip files matching this glob (repeatable)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="processes to spread files over"),
    root: Optional[Path] = GlossaryOption,
) -> None:
    """Annotate CUDA source with HIP and Metal equivalents and flag portability hazards."""
    from xlate.explain import run

    raise typer.Exit(run(paths, backend, fmt, fail_on, include, exclude, jobs, glossary=root))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}, add_help_option=False)
def translate(ctx: typer.Context) -> None:
    """Translate CUDA source to HIP by the symbol rows (`xlate translate --help` lists the options)."""
    from xlate.translate.cli import main

    raise typer.Exit(main(list(ctx.args)))


@glossary_app.command("coverage")
def glossary_coverage(
    root: Optional[Path] = GlossaryOption,
    missing_only: bool = typer.Option(False, "--missing-only", help="list only concepts with backends lacking an example"),
) -> None:
    """List every code-level concept with the backends that have no demonstrating kernel example."""
    from xlate import examples_check
    from xlate import glossary as gl

    g = gl.load(_root(root))
    if g.problems:
        typer.echo(f"error: the glossary has {len(g.problems)} problem(s); run `xlate glossary check`", err=True)
        raise typer.Exit(2)
    typer.echo(examples_check.render_coverage(examples_check.coverage(_root(root), g), missing_only))


@kernels_app.command("run")
def kernels_run(
    name: str = typer.Argument(..., help="example name, e.g. reduction"),
    backend: str = typer.Option("cuda", "--backend", "-b", help="cuda, hip, triton, metal or mlx"),
    size: Optional[str] = typer.Option(None, "--size", "-s", help="problem size, e.g. 1048576 or 4096x4096"),
    iters: int = typer.Option(20, "--iters", help="timed repetitions (median reported)"),
    interpret: bool = typer.Option(False, "--interpret", help="Triton: run in the CPU interpreter even if a GPU is present"),
    no_record: bool = typer.Option(False, "--no-record", help="do not write evidence for GPU runs"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
) -> None:
    """Build, run and check one example against NumPy; report time, throughput and roofline fraction."""
    from xlate.kernels.commands import run_command

    raise typer.Exit(run_command(name, backend, size, iters, interpret, not no_record, fmt))


@kernels_app.command("verify")
def kernels_verify(
    only: Optional[list[str]] = typer.Argument(None, help="example names (default: all)"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
) -> None:
    """Run everything this machine can do and print the example x backend matrix of what was shown."""
    from xlate.kernels.commands import verify_command

    raise typer.Exit(verify_command(only, fmt))


def main() -> None:  # pragma: no cover - console entry is xlate.__main__:main
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
