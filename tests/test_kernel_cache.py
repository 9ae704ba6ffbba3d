"""The on-disk kernel cache: keys, atomic writes, corrupt entries, unwritable directories (CPU).

The end-to-end cases compile one type pair for real with NVRTC (no GPU needed for that).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernels import cubin_cache
from gnn import kernel_prep
from kernels import launcher as sak
from test_kernel_compile import CHEAPEST

BASE = dict(source="__global__ void k() {}", arch="sm_90", options=["-DA=1"], headers={"cuda_fp16.h": b"x"},
            nvrtc_version=(13, 0))


def key(**changes: object) -> str:
    return cubin_cache.cache_key(**{**BASE, **changes})  # type: ignore[arg-type]


def test_key_changes_with_every_input() -> None:
    variants = [key(source="__global__ void k2() {}"), key(arch="sm_80"), key(options=["-DA=2"]),
                key(headers={"cuda_fp16.h": b"y"}), key(headers={"cuda_bf16.h": b"x"}), key(nvrtc_version=(13, 1))]
    assert len({key(), *variants}) == len(variants) + 1
    assert key() == key()  # and it is stable


def test_store_then_load_round_trips_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    assert cubin_cache.store(tmp_path / "cache", "abc", b"\x7fELF cubin bytes")
    assert cubin_cache.load(tmp_path / "cache", "abc") == b"\x7fELF cubin bytes"
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["abc.cubin"]
    assert cubin_cache.load(tmp_path / "cache", "other") is None


def test_a_write_interrupted_before_the_rename_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    assert not cubin_cache.store(tmp_path, "abc", b"cubin")
    assert list(tmp_path.iterdir()) == []  # neither a half entry nor the temporary file


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "foreign file"])
def test_corrupt_entries_read_as_missing(tmp_path: Path, damage: str) -> None:
    cubin_cache.store(tmp_path, "abc", b"\x7fELF" + bytes(range(200)))
    entry = tmp_path / "abc.cubin"
    blob = entry.read_bytes()
    entry.write_bytes({"flip a byte": blob[:-1] + bytes([blob[-1] ^ 1]), "truncate": blob[:-10], "empty": b"",
                       "foreign file": b"\x7fELF" + bytes(300)}[damage])
    assert cubin_cache.load(tmp_path, "abc") is None


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cubin_cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cubin_cache.cache_dir() == tmp_path / "xdg" / "aliased_io_plugin"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cubin_cache.cache_dir() == tmp_path / "home" / ".cache" / "aliased_io_plugin"
    monkeypatch.setenv(cubin_cache.ENV_VAR, str(tmp_path / "mine"))
    assert cubin_cache.cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(cubin_cache.ENV_VAR, "")
    assert cubin_cache.cache_dir() is None and cubin_cache.load(None, "k") is None
    assert not cubin_cache.store(None, "k", b"x")


@pytest.fixture()
def fresh_cubin_cache() -> None:
    sak.cubin_for.cache_clear()  # the per-process memo would hide the disk cache


def test_nvrtc_result_is_stored_then_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            fresh_cubin_cache: None) -> None:
    monkeypatch.setenv(cubin_cache.ENV_VAR, str(tmp_path))
    first = sak.cubin_for("sm_80", CHEAPEST)
    assert not first.from_cache and first.stored and first.code[:4] == b"\x7fELF"
    assert f"cached in {tmp_path}" in kernel_prep.describe("sm_80", 1.0, first, tmp_path)
    sak.cubin_for.cache_clear()
    second = sak.cubin_for("sm_80", CHEAPEST)
    assert second.from_cache and second.code == first.code
    assert kernel_prep.describe("sm_80", 0.012, second, tmp_path) == (
        f"Kernel: loaded for sm_80 from the cache {tmp_path} in 12 ms")


def test_a_corrupt_entry_is_compiled_again_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        fresh_cubin_cache: None) -> None:
    monkeypatch.setenv(cubin_cache.ENV_VAR, str(tmp_path))
    cubin = sak.cubin_for("sm_80", CHEAPEST).code
    (entry,) = tmp_path.glob("*.cubin")
    entry.write_bytes(entry.read_bytes()[:100])
    sak.cubin_for.cache_clear()
    again = sak.cubin_for("sm_80", CHEAPEST)
    assert not again.from_cache and again.stored and again.code == cubin
    assert cubin_cache.load(tmp_path, entry.stem) == cubin


def test_an_unwritable_cache_falls_back_to_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     fresh_cubin_cache: None) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a directory")  # works as root too, unlike chmod
    monkeypatch.setenv(cubin_cache.ENV_VAR, str(blocker / "cache"))
    cubin = sak.cubin_for("sm_80", CHEAPEST)
    assert cubin.code[:4] == b"\x7fELF" and not cubin.from_cache and not cubin.stored
    assert "could not write the cache" in kernel_prep.describe("sm_80", 1.0, cubin, blocker / "cache")
    assert f"{cubin_cache.ENV_VAR} is empty: not cached" in kernel_prep.describe("sm_80", 1.0, cubin, None)


def test_an_edited_source_misses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           fresh_cubin_cache: None) -> None:
    monkeypatch.setenv(cubin_cache.ENV_VAR, str(tmp_path))
    sak.cubin_for("sm_80", CHEAPEST)
    edited = tmp_path / "scatter_add.cu"
    edited.write_text(sak.KERNEL_SOURCE.read_text() + "\n// an edit\n")
    monkeypatch.setattr(sak, "KERNEL_SOURCE", edited)
    sak.cubin_for.cache_clear()
    assert not sak.cubin_for("sm_80", CHEAPEST).from_cache
    assert len(list(tmp_path.glob("*.cubin"))) == 2
