"""_timing.py: how every peer script times PyTorch, the same way cudalab times a solution.

CUDA events around the call, a warm-up first, the median of at least 20 runs, min and max
alongside. Before every start event, as in cudalab's runner: L2 is evicted by *reading* a
buffer twice its size (a memset would leave dirty lines to be written back during the timed
call), then the GPU is kept busy for ~150 us so the start event fires after the host has
enqueued the timed work (no launch latency in the measurement). Each script prints one JSON
object per shape (see emit)."""
import json
import statistics

import torch


def l2_flusher():
    """A callable that evicts L2 by reading a buffer twice its size, then waits ~150 us."""
    props = torch.cuda.get_device_properties(0)
    size = max(2 * getattr(props, "L2_cache_size", 50 << 20), 8 << 20)
    buf = torch.zeros(size // 4, dtype=torch.float32, device="cuda")
    out = torch.empty((), dtype=torch.float32, device="cuda")
    cycles = 300_000  # about 150 us at 2 GHz

    def flush():
        torch.sum(buf, dim=0, out=out)
        torch.cuda._sleep(cycles)

    return flush


def time_ms(fn, runs=30, warmup=3, before=None):
    """Median, min and max milliseconds of fn() over runs, each after before()."""
    flush = l2_flusher()
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(runs):
        if before:
            before()
        flush()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def emit(lab, shape, peer, timing, bytes_moved=None, flops=None, **extra):
    """Prints one result line: median/min/max ms, and GB/s or TFLOP/s."""
    med, lo, hi = timing
    out = {"lab": lab, "shape": shape, "peer": peer, "median_ms": med, "min_ms": lo, "max_ms": hi,
           "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
    if bytes_moved is not None:
        out["bytes"] = bytes_moved
        out["gbps"] = bytes_moved / (med * 1e-3) / 1e9
    if flops is not None:
        out["flops"] = flops
        out["tflops"] = flops / (med * 1e-3) / 1e12
    out.update(extra)
    print(json.dumps(out), flush=True)
    return out
