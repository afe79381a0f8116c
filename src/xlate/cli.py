"""The `xlate` command line: thin wrappers that call into the modules that do the work.

Each command imports its module inside its body so that one command never pays for another's imports.
Errors follow `xlate.errors`: a refusal is one `error:` line on stderr and the exit code of the table
in docs/cli.md. `lookup` and `explain` are defined once, by their modules' argparse front ends (which
`xlate.__main__` calls directly, skipping typer); the typer commands below only pass their arguments on.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer

from xlate.errors import EXIT_ERROR, EXIT_INTERRUPTED, GlossaryError, InputError, UsageError, XlateError, one_line, report

__all__ = ["app", "main"]

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

GlossaryOption = typer.Option(None, "--glossary", help="glossary folder (default: $XLATE_GLOSSARY, else the project's glossary/)")
# The argparse front ends of lookup and explain read their own options (and --help).
PASSTHROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}

F = TypeVar("F", bound=Callable[..., Any])


def _refusals(fn: F) -> F:
    """Turn an XlateError raised by a command into its one-line message and exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except XlateError as exc:
            raise typer.Exit(report(exc)) from None

    return wrapper  # type: ignore[return-value]


def _root(path: Path | None) -> Path:
    """The glossary folder the command reads; refused when it does not exist."""
    from xlate.kb import require_glossary

    return require_glossary(path)


def _load(root: Path) -> Any:
    """The whole glossary, refused when any file in it has a problem (`glossary check` lists them)."""
    from xlate import kb

    g = kb.load_glossary(root)
    if g.problems:
        raise GlossaryError(f"the glossary has {len(g.problems)} problem(s), the first {g.problems[0]}")
    return g


@app.command(context_settings=PASSTHROUGH, add_help_option=False)
def lookup(ctx: typer.Context) -> None:
    """Find a concept from any vendor's vocabulary and show every backend's term for it."""
    from xlate.lookup import main as lookup_main

    raise typer.Exit(lookup_main(list(ctx.args)))


@glossary_app.command("check")
@_refusals
def glossary_check(root: Path | None = GlossaryOption) -> None:
    """Validate every glossary file: schema, unique names and symbols, edges, URLs. Exit 1 on any problem."""
    from xlate.kb import run_check

    raise typer.Exit(run_check(_root(root)))


@glossary_app.command("schema")
@_refusals
def glossary_schema(root: Path | None = GlossaryOption) -> None:
    """Write glossary/schema.json from the models (editors validate YAML against it)."""
    from xlate import kb

    typer.echo(f"wrote {kb.write_schema(_root(root))}")


@glossary_app.command("claims")
@_refusals
def glossary_claims(
    show: str = typer.Option("missing", "--show", help="missing (claims without evidence), backed or all"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
    max_missing: int | None = typer.Option(None, "--max-missing", help="exit 1 if more claims than this lack evidence"),
    root: Path | None = GlossaryOption,
) -> None:
    """List the non-trivial claims (numbers, versions, defaults, 'does not exist') and which carry evidence."""
    from xlate.kb import run_claims as run

    if show not in ("missing", "backed", "all") or fmt not in ("text", "json"):
        raise UsageError("--show is missing, backed or all; --format is text or json")
    raise typer.Exit(run(_root(root), show, fmt, max_missing))


@glossary_app.command("import-hipify")
@_refusals
def glossary_import_hipify(
    tables: Path = typer.Argument(..., help="folder with HIPIFY's docs/tables/*.md and a PROVENANCE.md naming the source commit"),
    root: Path | None = GlossaryOption,
) -> None:
    """Import AMD's HIPIFY tables into glossary/symbols/hipify/ (rerunnable; overrides.yaml is never touched)."""
    from xlate import kb

    folder = _root(root)
    try:
        counts = kb.import_hipify_tables(tables, folder)
    except kb.HipifyImportError as exc:
        raise InputError(str(exc)) from None
    for family, n in counts.items():
        typer.echo(f"{family}: {n} rows")
    typer.echo(f"{sum(counts.values())} rows in {len(counts)} families")


@glossary_app.command("fix-edges")
@_refusals
def glossary_fix_edges(root: Path | None = GlossaryOption) -> None:
    """Write the missing side of every one-sided see-also / contrasts-with edge."""
    from xlate.kb import fix_edges

    for cid, edge_type, target in (fixes := fix_edges(_root(root))):
        typer.echo(f"{cid}: added {edge_type.value} {target}")
    typer.echo(f"{len(fixes)} edge(s) added")


@app.command()
@_refusals
def path(
    source: str = typer.Argument(..., help="a concept id or any term for it"),
    target: str = typer.Argument(..., help="a concept id or any term for it"),
    root: Path | None = GlossaryOption,
) -> None:
    """Show how two concepts relate: the shortest chain of typed edges between them."""
    from xlate import kb
    from xlate.kb import relation_path
    from xlate.errors import NoMatch

    folder = _root(root)
    index = kb.load_index(folder)  # a defective glossary raises a GlossaryError
    ends = []
    for query in (source, target):
        found = kb.search(index, query, limit=1)
        if not found:
            raise NoMatch(f"no concept matches {query!r}", hint="try `xlate lookup` with another spelling")
        if found[0].kind == "fuzzy":  # a guess: say so rather than answer for a concept nobody named
            typer.echo(f"note: {query!r} read as {found[0].concept} (fuzzy match, score {found[0].score:g})", err=True)
        ends.append(found[0].concept)
    steps = relation_path(index, ends[0], ends[1])
    if steps is None:
        typer.echo(f"{ends[0]} and {ends[1]} are not connected in the glossary graph")
        raise typer.Exit(1)
    if not steps:
        typer.echo(f"{ends[0]} is {ends[1]}")
        return
    for a, label, b in steps:
        typer.echo(f"{a} --{label}--> {b}")


@app.command()
@_refusals
def compare(
    gpus: list[str] = typer.Argument(..., help="GPU ids or names: h100 mi300x m3-ultra ..."),
    params: str | None = typer.Option(None, "--params", "-p", help="model size for the derived rows: 405B, 70b, 8e9 (for a mixture of experts, the parameters active per token)"),
    precision: str = typer.Option("bf16", "--precision", help="bf16, fp16 or fp8 (weights and peak rate)"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
    root: Path | None = GlossaryOption,
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
@_refusals
def docs_generate(
    root: Path | None = GlossaryOption,
    out: Path | None = typer.Option(None, "--out", help="folder to write into (default: build/generated-docs/)"),
) -> None:
    """Write the generated pages to a folder to read or diff them (mkdocs itself needs no generate step)."""
    from xlate.docsgen.build import DocsError, generate, repo_root

    folder = _root(root)
    target = out or repo_root() / "build" / "generated-docs"
    try:
        pages = generate(folder, target)
    except DocsError as exc:
        raise GlossaryError(str(exc), hint=None) from None
    typer.echo(f"generated {len(pages)} pages in {target}")


@docs_app.command("build")
@_refusals
def docs_build(
    engine: str = typer.Option("mkdocs", help="mkdocs or zensical"),
    site_dir: Path | None = typer.Option(None, "--site-dir", help="output folder (default: site/)"),
) -> None:
    """Build the site (mkdocs --strict, or zensical) and say where it went."""
    from xlate.docsgen.build import DocsError, build

    _load(_root(None))  # the pages come from the glossary: refuse a broken one before mkdocs starts
    try:
        pages, seconds, site = build(site_dir=site_dir, engine=engine)
    except DocsError as exc:
        raise XlateError(str(exc)) from None
    typer.echo(f"built the site with {engine}: {pages} HTML pages in {seconds:.1f} s")
    typer.echo(f"site: {site} (open {site / 'index.html'}; search needs http: xlate docs serve)")


@docs_app.command("serve")
@_refusals
def docs_serve(
    addr: str = typer.Option("127.0.0.1:8000", "--dev-addr", help="address to serve on"),
) -> None:
    """Serve the site with live reload; rebuilds when docs/, glossary/ or kernels/ change."""
    from xlate.docsgen.build import DocsError, serve

    _load(_root(None))  # a glossary with defects would serve a site that fails to build: refuse first
    try:
        raise typer.Exit(serve(addr))
    except DocsError as exc:
        raise XlateError(str(exc)) from None


@app.command(context_settings=PASSTHROUGH, add_help_option=False)
def explain(ctx: typer.Context) -> None:
    """Annotate CUDA source with HIP and Metal equivalents and flag portability hazards."""
    from xlate.explain import main as explain_main

    raise typer.Exit(explain_main(list(ctx.args)))


@app.command(context_settings=PASSTHROUGH, add_help_option=False)
def translate(ctx: typer.Context) -> None:
    """Translate CUDA source to HIP by the symbol rows (`xlate translate --help` lists the options)."""
    from xlate.translate.cli import main

    raise typer.Exit(main(list(ctx.args)))


@glossary_app.command("coverage")
@_refusals
def glossary_coverage(
    root: Path | None = GlossaryOption,
    missing_only: bool = typer.Option(False, "--missing-only", help="list only concepts with backends lacking an example"),
) -> None:
    """List every code-level concept with the backends that have no demonstrating kernel example."""
    from xlate import examples_check

    folder = _root(root)
    typer.echo(examples_check.render_coverage(examples_check.coverage(folder, _load(folder)), missing_only))


@kernels_app.command("run")
def kernels_run(
    name: str = typer.Argument(..., help="example name, e.g. reduction"),
    backend: str = typer.Option("cuda", "--backend", "-b", help="cuda, hip, triton, metal or mlx"),
    size: str | None = typer.Option(None, "--size", "-s", help="problem size, e.g. 1048576 or 4096x4096"),
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
    only: list[str] | None = typer.Argument(None, help="example names (default: all)"),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json"),
) -> None:
    """Run everything this machine can do and print the example x backend matrix of what was shown."""
    from xlate.kernels.commands import verify_command

    raise typer.Exit(verify_command(only, fmt))


def main(argv: list[str] | None = None) -> int:
    """Run the typer app and return its exit code; usage errors become one line, not click's box."""
    try:  # typer 0.20+ carries its own copy of click; earlier releases use click itself
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover
        from click import exceptions as click_errors  # type: ignore[no-redef]

    try:
        code = app(args=argv, prog_name="xlate", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else "")
        return EXIT_ERROR
    except click_errors.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "xlate"
        print(f"error: {where}: {one_line(exc.format_message())} (see `{where} --help`)", file=sys.stderr)
        return EXIT_ERROR
    except typer.Abort:
        return EXIT_INTERRUPTED
    except click_errors.ClickException as exc:
        print(f"error: {one_line(exc.format_message())}", file=sys.stderr)
        return exc.exit_code
    except XlateError as exc:
        return report(exc)
    except SystemExit as exc:  # an argparse front end (lookup, explain) exits on --help and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    return code if isinstance(code, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
