"""The pipeline of runtime.cu in MLX, and what an array framework keeps of the host runtime.

MLX has no device query beyond mx.device_info, no allocation call (an array's buffer is taken
from MLX's cache when the array is evaluated, which the active-memory counter shows), no copies
(CPU and GPU share unified memory) and no module loading. Two streams play the two queues:
stage 1 of every chunk is queued on one, stage 2 on the other, and MLX inserts the wait
between them itself because stage 2 reads stage 1's array. Nothing runs until mx.eval: the
graph of both streams is built lazily first. A bad shape raises ValueError, caught.

The Metal form of this example is the native host runtime_host.mm with runtime.metal, not
mx.fast.metal_kernel: there is no `run_metal` here.
"""

import mlx.core as mx

COEFFS = (1.5, -0.5, 0.25, 1.0)  # as in runtime.cu
CHUNKS = 4


def run(x: mx.array) -> dict[str, mx.array]:
    if not mx.device_info():
        raise RuntimeError("mx.device_info() returned nothing")
    device = mx.default_device()
    try:
        x + mx.zeros((x.shape[0] + 1,))  # shapes that do not broadcast: MLX raises at once
        raise AssertionError("a bad shape was accepted")
    except ValueError:
        pass
    c0, c1, c2, c3 = COEFFS
    n = x.shape[0]
    after = mx.concatenate([x[1:], mx.zeros((1,), dtype=x.dtype)])  # x[i + 1], 0 past the end
    first, second = mx.new_stream(device), mx.new_stream(device)
    per = -(-n // CHUNKS)
    parts = []
    for lo in range(0, n, per):
        hi = min(n, lo + per)
        with mx.stream(first):
            t = c0 * x[lo:hi] + c1 * after[lo:hi]
        with mx.stream(second):  # reads t: MLX makes this stream wait for the first
            parts.append(c2 * t * t + c3)
    y = mx.concatenate(parts)
    before = mx.get_active_memory()
    mx.eval(y)  # lazy until here: the allocation and both streams' work happen now
    if mx.get_active_memory() < before + y.nbytes:  # y's buffer was taken when it was evaluated
        raise AssertionError("evaluating y allocated no buffer for it")
    mx.synchronize()
    return {"y": y}
