"""The kernel chain of graphs.cu in MLX. mx.compile traces the chain once into a graph and
replays the compiled graph on later calls, MLX's closest analogue to stream capture and graph
launch. Around it: the device's properties (mx.device_info), the buffer cache that plays the
part of stream-ordered allocation (a cache limit, its size, and giving it back with
mx.clear_cache), an error raised for a bad shape and caught, and the chain forced onto the CPU
stream, which reads the same unified memory as the GPU would. `run_metal` dispatches the step
kernel in graphs.metal STEPS times."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("graphs.metal").read_text(encoding="utf-8")
STEPS = 32


def _chain(y: mx.array) -> mx.array:
    for _ in range(STEPS):
        y = y * 0.999 + 0.001
    return y


_compiled = mx.compile(_chain)


def run(x: mx.array) -> dict[str, mx.array]:
    info = mx.device_info()  # architecture and name; on Apple GPUs also memory size, working set ...
    if not info:
        raise RuntimeError("mx.device_info() returned nothing")
    previous = mx.set_cache_limit(64 * 2**20)  # freed buffers stay cached for reuse, up to 64 MiB
    try:
        x + mx.zeros((x.shape[0] + 1,))  # shapes that do not broadcast: MLX raises at once
        raise AssertionError("a bad shape was accepted")
    except ValueError:
        pass
    with mx.stream(mx.cpu):  # unified memory: the CPU stream works on the same arrays
        y = _compiled(x)
    mx.eval(y)
    mx.synchronize()
    _ = mx.get_cache_memory()
    mx.set_cache_limit(previous)
    mx.clear_cache()
    return {"y": y}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="chain_step", input_names=["src", "coef"], output_names=["out"], source=BODY)
    coef = mx.array([0.999, 0.001], dtype=mx.float32)
    y = x
    for _ in range(STEPS):
        (y,) = kernel(inputs=[y, coef], grid=(x.shape[0], 1, 1), threadgroup=(256, 1, 1), output_shapes=[x.shape],
                      output_dtypes=[mx.float32])
    return {"y": y}
