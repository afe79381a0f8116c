"""Translator behaviour that HIPIFY's own unit tests expect, each on a small input written here:
library sub-headers, runtime sub-headers, the rocRAND header forms, where the runtime header goes."""

from __future__ import annotations

from xlate import kb
from xlate.translate.engine import translate_source
from xlate.translate.options import Options


def _hip(code: str, name: str = "k.cu", **kw: object) -> str:
    result = translate_source(name, code.encode(), kb.load_symbols(), Options(**kw))  # type: ignore[arg-type]
    assert result.text is not None
    return result.text.decode()


def _includes(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.lstrip().startswith("#include")]


def test_curand_sub_headers_collapse_into_the_kernel_header() -> None:
    out = _hip('#include "curand_kernel.h"\n#include "curand_normal.h"\n#include "curand_uniform.h"\n'
               '#include "curand_mtgp32_host.h"\n')
    assert _includes(out) == ['#include <hip/hip_runtime.h>', '#include "hiprand/hiprand_kernel.h"',
                              '#include "hiprand/hiprand_mtgp32_host.h"']


def test_curand_headers_under_roc_take_the_rocrand_forms() -> None:
    out = _hip('#include "curand.h"\n#include "curand_kernel.h"\n#include "curand_lognormal.h"\n'
               '#include "curand_mtgp32_kernel.h"\n#include "curand_mtgp32.h"\n', roc=True)
    assert '#include "rocrand/rocrand.h"' in out
    assert '#include "rocrand/rocrand_kernel.h"' in out
    assert '#include "rocrand/rocrand_log_normal.h"' in out
    assert _includes(out).count('#include "rocrand/rocrand_mtgp32.h"') == 1
    assert "curand" not in out


def test_cusolver_sub_headers_leave_one_hipsolver_include() -> None:
    out = _hip('#include "cusolverDn.h"\n#include "cusolver_common.h"\n#include "cusolverSp.h"\n'
               '#include "cusolverRf.h"\n')
    assert _includes(out).count('#include "hipsolver/hipsolver.h"') == 1
    assert "cusolver" not in out


def test_runtime_sub_headers_map_to_their_hip_headers() -> None:
    out = _hip('#include "channel_descriptor.h"\n#include "driver_types.h"\n#include "cuda_texture_types.h"\n'
               '#include "vector_types.h"\n', name="k.cpp")
    assert _includes(out) == ['#include "hip/channel_descriptor.h"', '#include "hip/driver_types.h"',
                              '#include "hip/hip_texture_types.h"', '#include "hip/hip_vector_types.h"']


def test_texture_fetch_header_is_dropped_after_the_runtime_header() -> None:
    out = _hip("#include <cuda.h>\n#include <texture_fetch_functions.h>\n", name="k.cpp")
    assert _includes(out) == ["#include <hip/hip_runtime.h>"]


def test_runtime_api_header_alone_still_gets_the_runtime_header() -> None:
    out = _hip("#include <cuda_runtime_api.h>\n__global__ void k() {}\n")
    assert _includes(out) == ["#include <hip/hip_runtime.h>", "#include <hip/hip_runtime_api.h>"]


def test_every_cu_file_gets_the_runtime_header() -> None:
    # nvcc gives every .cu file the runtime header, even one whose CUDA names sit in a local header.
    out = _hip('#include "local.h"\nint f() { return 1; }\n')
    assert _includes(out) == ["#include <hip/hip_runtime.h>", '#include "local.h"']
    assert _includes(_hip('#include "local.h"\n', name="k.cpp")) == ['#include "local.h"']


def test_runtime_header_goes_inside_a_guard_with_pragma_once() -> None:
    out = _hip("#ifndef G_H\n#pragma once\n#define G_H\n__global__ void k() {}\n#endif\n")
    assert out.splitlines()[:2] == ["#ifndef G_H", "#include <hip/hip_runtime.h>"]
    plain = _hip("#ifndef G_H\n#define G_H\n__global__ void k() {}\n#endif\n")
    assert plain.splitlines()[:3] == ["#ifndef G_H", "#define G_H", "#include <hip/hip_runtime.h>"]


def test_cub_primitives_take_their_hipcub_names() -> None:
    out = _hip("#include <cub/cub.cuh>\n__global__ void k() {\n"
               "  typedef cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_TRANSPOSE> L;\n"
               "  typedef cub::BlockRadixSort<int, 128, 4> S;\n}\n")
    assert "hipcub::BlockLoad<int, 128, 4, hipcub::BLOCK_LOAD_TRANSPOSE> L;" in out
    assert "hipcub::BlockRadixSort<int, 128, 4> S;" in out
    assert "cub::" not in out.replace("hipcub::", "")


def test_a_cub_name_hipcub_lacks_stays_unknown() -> None:
    # cub::DeviceFor has no hipCUB counterpart in ROCm 6.4: it is reported, not renamed by the prefix.
    result = translate_source("k.cu", b"void f() { cub::DeviceFor::Bulk(1, 0); }\n", kb.load_symbols(), Options())
    assert result.text is not None and b"cub::DeviceFor" in result.text and b"hipcub::DeviceFor" not in result.text


def test_ggl_wraps_deduced_template_kernels_and_template_macros() -> None:
    code = ("#define KNAME axpy<float>\n"
            "template <typename T> __global__ void axpy(T a, T* x) {}\n"
            "namespace n { template <typename S> __global__ void init(S* s) {} }\n"
            "__global__ void plain(int* p) {}\n"
            "void host(float* x, int* p) {\n  axpy<<<1, 2>>>(1.0f, x);\n  KNAME<<<1, 2>>>(1.0f, x);\n"
            "  n::init<<<1, 2>>>(p);\n  plain<<<1, 2>>>(p);\n}\n")
    out = _hip(code, launch_syntax="ggl")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(axpy), dim3(1), dim3(2), 0, 0, 1.0f, x);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(KNAME), dim3(1), dim3(2), 0, 0, 1.0f, x);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(n::init), dim3(1), dim3(2), 0, 0, p);" in out
    assert "hipLaunchKernelGGL(plain, dim3(1), dim3(2), 0, 0, p);" in out


def test_no_hip_equivalent_comment_not_over_a_rewritten_name() -> None:
    code = "void f() {\n  cudnnDataType_t t = CUDNN_DATA_BFLOAT16;\n}\nvoid g() {\n  cudaDeviceFlushGPUDirectRDMAWrites(a, b);\n}\n"
    plain = _hip(code, name="k.cpp")
    assert "XL090 no-hip-equivalent: CUDNN_DATA_BFLOAT16" in plain and "CUDNN_DATA_BFLOAT16;" in plain
    roc = _hip(code, name="k.cpp", roc=True)
    assert "miopenBFloat16;" in roc
    assert "XL090 no-hip-equivalent: CUDNN_DATA_BFLOAT16" not in roc
    # A name left as written keeps its comment.
    assert "XL090 no-hip-equivalent: cudaDeviceFlushGPUDirectRDMAWrites" in roc


def test_roc_template_id_spellings_are_written() -> None:
    out = _hip("#include <curand_kernel.h>\n__global__ void k(curandStateSobol32* s, curandStateScrambledSobol64* t) {}\n",
               roc=True)
    assert "rocrand_device::sobol32_engine<false>* s" in out
    assert "rocrand_device::scrambled_sobol64_engine<false>* t" in out


def test_profiler_header_maps_to_the_header_that_declares_hip_profiler_start() -> None:
    out = _hip("#include <cuda_profiler_api.h>\nvoid f() { cudaProfilerStart(); }\n", name="k.cpp")
    assert _includes(out) == ["#include <hip/hip_runtime_api.h>"]
