"""Finding the newer ROCm headers: the environment variables, the version file, the skip reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate import hip_headers


def _fake_include(root: Path, text: str) -> Path:
    include = root / "usr" / "include"
    (include / "hip").mkdir(parents=True)
    (include / "hip" / "hip_version.h").write_text(text, encoding="utf-8")
    return include


VERSION_H = "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n#  define HIP_VERSION_PATCH 43484\n"


def test_version_is_read_from_hip_version_h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    include = _fake_include(tmp_path, VERSION_H)
    monkeypatch.setenv(hip_headers.ENV, str(include))
    found = hip_headers.find_rocm_headers()
    assert found is not None and found.include == include
    assert found.version == (6, 4, 43484) and found.version_text == "6.4.43484"
    assert found.has("hip/hip_version.h") and not found.has("hipblas/hipblas.h")


def test_an_incomplete_version_file_is_no_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    include = _fake_include(tmp_path, "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n")
    monkeypatch.setenv(hip_headers.ENV, str(include))
    assert hip_headers.find_rocm_headers() is None
    assert str(include) in hip_headers.absent_reason()


def test_the_unpack_folder_variable_is_read_like_the_install_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(hip_headers.ENV, raising=False)
    root = tmp_path / "rocm-6.4"
    monkeypatch.setenv(hip_headers.DIR_ENV, str(root))
    assert hip_headers.find_rocm_headers() is None
    assert "not unpacked" in hip_headers.absent_reason()
    # The install script writes why fetching failed next to the folder; the skip reason repeats it.
    (tmp_path / "rocm-6.4.error").write_text("pinned versions no longer in the mirror: libx=1\n", encoding="utf-8")
    assert hip_headers.absent_reason().endswith("pinned versions no longer in the mirror: libx=1")
    include = _fake_include(root, VERSION_H)
    found = hip_headers.find_rocm_headers()
    assert found is not None and found.include == include


def test_install_script_names_no_package_host() -> None:
    script = (Path(__file__).resolve().parents[1] / "scripts" / "install-test-deps.sh").read_text(encoding="utf-8")
    assert "debian.org" not in script and "http://" not in script and "https://" not in script
    assert "Dir::State::status=/dev/null" in script
