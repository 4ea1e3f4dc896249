"""gemm.py: the gemm lab's peer, torch.matmul on fp16 (cuBLAS underneath), at the lab's bench
shapes in lab.yaml order: A (M x K) and B (K x N) row-major, uniform in [-1, 1) like the
checker's inputs; flops = 2 M N K. Reduced-precision (fp16) reductions are switched off so
cuBLAS accumulates in fp32, as the lab requires.
  python3 gemm.py                         the lab's bench shapes
  python3 gemm.py --shapes M,N,K ...      other shapes (bench/round2.sh)"""
import sys

import torch

from _timing import emit, time_ms

SHAPES = [("4096x4096x4096", 4096, 4096, 4096),
          ("8192x8192x8192", 8192, 8192, 8192),
          ("8192x8192x2048 (short K)", 8192, 8192, 2048)]


def main():
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    shapes = SHAPES
    if "--shapes" in sys.argv:
        shapes = []
        for arg in sys.argv[sys.argv.index("--shapes") + 1:]:
            m, n, k = (int(x) for x in arg.split(","))
            shapes.append((f"{m}x{n}x{k}", m, n, k))
    for name, m, n, k in shapes:
        a = torch.empty(m, k, dtype=torch.float16, device="cuda").uniform_(-1, 1)
        b = torch.empty(k, n, dtype=torch.float16, device="cuda").uniform_(-1, 1)
        c = torch.empty(m, n, dtype=torch.float16, device="cuda")
        emit("gemm", name, "torch.matmul fp16 (cuBLAS)", time_ms(lambda: torch.matmul(a, b, out=c)),
             flops=2.0 * m * n * k)
        ref = a[:64].double() @ b.double()  # the first rows are right
        if not torch.allclose(c[:64].double(), ref, rtol=2e-3, atol=2e-3):
            raise SystemExit(f"peer result wrong at {name}")
        del a, b, c


if __name__ == "__main__":
    main()
