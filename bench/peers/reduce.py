"""reduce.py: the reduce lab's peer, torch.sum (which runs CUB's device reduction), at the
bench shape: 2^28 fp32 values, bytes = 4n read + 4 written."""
import torch

from _timing import emit, time_ms


def main():
    n = 1 << 28
    x = torch.empty(n, dtype=torch.float32, device="cuda").uniform_(-1, 1)
    emit("reduce", "2^28 floats (1 GiB)", "torch.sum", time_ms(lambda: torch.sum(x)), bytes_moved=4 * n + 4)


if __name__ == "__main__":
    main()
