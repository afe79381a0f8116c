"""Independent work on separate MLX streams. MLX streams are ordered queues on one device
(mx.new_stream); work on different streams may run concurrently, and MLX inserts the waits
that data dependencies need. The input is split in chunks, each transformed on its own stream.
`run_metal` does the same with the Metal body in streams.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("streams.metal").read_text(encoding="utf-8")
STEPS = 64
STREAMS = 2


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    per = (n + parts - 1) // parts
    return [(i, min(i + per, n)) for i in range(0, n, per)]


def run(x: mx.array) -> dict[str, mx.array]:
    streams = [mx.new_stream(mx.default_device()) for _ in range(STREAMS)]
    parts = []
    for i, (lo, hi) in enumerate(_chunks(x.size, 2 * STREAMS)):
        s = streams[i % STREAMS]
        v = x[lo:hi]
        for _ in range(STEPS):
            v = mx.add(mx.multiply(v, 0.999, stream=s), 0.001, stream=s)
        parts.append(v)
    return {"y": mx.concatenate(parts)}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="transform", input_names=["x"], output_names=["y"], source=BODY)
    streams = [mx.new_stream(mx.gpu) for _ in range(STREAMS)]
    parts = []
    for i, (lo, hi) in enumerate(_chunks(x.size, 2 * STREAMS)):
        (y,) = kernel(inputs=[x[lo:hi]], grid=(hi - lo, 1, 1), threadgroup=(256, 1, 1),
                      output_shapes=[(hi - lo,)], output_dtypes=[mx.float32], stream=streams[i % STREAMS])
        parts.append(y)
    return {"y": mx.concatenate(parts)}
