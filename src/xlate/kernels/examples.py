"""Reading kernels/examples/<name>/example.yaml into plain data (PyYAML only, no pydantic)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BACKENDS = ("cuda", "hip", "triton", "metal", "mlx")


class ExampleError(Exception):
    """An example that does not exist or whose example.yaml cannot be used."""


def kernels_root() -> Path:
    env = os.environ.get("XLATE_KERNELS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "kernels"


def source_name(name: str, backend: str) -> str:
    stem = name.replace("-", "_")
    return {
        "cuda": f"{stem}.cu",
        "hip": f"{stem}.hip",
        "triton": f"{stem}_triton.py",
        "metal": f"{stem}.metal",
        "mlx": f"{stem}_mlx.py",
    }[backend]


def host_source_name(name: str) -> str:
    """A native Metal host program (Objective-C++) that loads the example's .metal library itself,
    for the host API that MLX does not expose; it counts as part of the Metal backend."""
    return f"{name.replace('-', '_')}_host.mm"


# Said wherever a native Metal host is shown or checked: nothing here can build one.
NATIVE_HOST_UNVERIFIED = "written against Apple's documentation, not compiled: no Apple SDK here"


@dataclass
class Example:
    name: str
    folder: Path
    title: str
    teaches: str
    sizes: dict[str, tuple[int, ...]]  # "gpu" and "cpu" default sizes
    size_names: list[str]
    tolerance: float  # allowed ||out - ref|| / ||ref||; 0 means exact
    metric: str  # bandwidth, compute, host-link or launch
    outputs: dict[str, str]  # output name -> dtype written by the compiled backends
    expect: dict[str, list[str]] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)  # backend -> why it has no file
    concepts: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    def source(self, backend: str) -> Path:
        return self.folder / source_name(self.name, backend)

    @property
    def native_host(self) -> Path | None:
        """The example's native Metal host program, where it has one."""
        path = self.folder / host_source_name(self.name)
        return path if path.is_file() else None

    def has(self, backend: str) -> bool:
        return backend not in self.absent and self.source(backend).is_file()

    def parse_size(self, text: str | None, where: str = "gpu") -> tuple[int, ...]:
        """'4096x4096' or '1048576' -> a size tuple with as many parts as the example takes."""
        if text is None:
            return self.sizes[where]
        try:
            parts = tuple(int(p) for p in text.lower().replace(",", "x").split("x") if p.strip())
        except ValueError:
            raise ExampleError(f"--size {text!r}: expected integers joined by 'x', e.g. {self.size_hint()}") from None
        if len(parts) != len(self.size_names) or any(p <= 0 for p in parts):
            raise ExampleError(f"--size {text!r}: {self.name} takes {self.size_hint()}")
        return parts

    def size_hint(self) -> str:
        return "x".join(n.upper() for n in self.size_names)


def _sizes(value: Any, path: Path) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and v > 0 for v in value):
        raise ExampleError(f"{path}: sizes must be lists of positive integers")
    return tuple(value)


def load(name: str, root: Path | None = None) -> Example:
    root = root or kernels_root()
    folder = root / "examples" / name
    path = folder / "example.yaml"
    if not path.is_file():
        known = ", ".join(names(root)) or "none"
        raise ExampleError(f"no example named {name!r} (known: {known})")
    try:
        # libyaml's parser where present (the pure-Python one takes tens of milliseconds a file)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        raise ExampleError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise ExampleError(f"{path}: expected a mapping at the top level")
    try:
        sizes = {k: _sizes(v, path) for k, v in data["sizes"].items()}
        return Example(
            name=name,
            folder=folder,
            title=str(data["title"]),
            teaches=" ".join(str(data["teaches"]).split()),
            sizes=sizes,
            size_names=list(data["size_names"]),
            tolerance=float(data["tolerance"]),
            metric=str(data["metric"]),
            outputs={str(k): str(v) for k, v in data["outputs"].items()},
            expect={str(k): [str(s) for s in v] for k, v in (data.get("expect") or {}).items()},
            absent={str(k): str(v) for k, v in (data.get("absent") or {}).items()},
            concepts=list(data.get("concepts") or []),
            raw=data,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ExampleError(f"{path}: missing or malformed field: {exc}") from None


def names(root: Path | None = None) -> list[str]:
    root = root or kernels_root()
    return sorted(p.parent.name for p in (root / "examples").glob("*/example.yaml"))
