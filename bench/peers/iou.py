"""iou.py: the iou lab's peer, torchvision.ops.box_iou, at the bench shape 4096 x 50000.

Boxes follow the lab's `mixed` distribution in shape (centres uniform in [-256, 256),
sides in [1, 128)); four input sets are rotated (the 819 MB output dwarfs L2 anyway).
Bytes as the lab counts them: output m*n*4 + inputs (m+n)*16."""
import torch
import torchvision

from _timing import emit, time_ms


def boxes(k, gen):
    c = (torch.rand(k, 2, generator=gen, device="cuda") * 2 - 1) * 256
    wh = 1 + 127 * torch.rand(k, 2, generator=gen, device="cuda")
    return torch.cat([c - wh / 2, c + wh / 2], dim=1).contiguous()


def main():
    m, n = 4096, 50000
    gen = torch.Generator(device="cuda").manual_seed(1)
    sets = [(boxes(m, gen), boxes(n, gen)) for _ in range(4)]
    state = {"k": 0}

    def rotate():
        state["k"] = (state["k"] + 1) % len(sets)

    def call():
        torchvision.ops.box_iou(*sets[state["k"]])

    emit("iou", f"{m} x {n}", "torchvision.ops.box_iou", time_ms(call, before=rotate),
         bytes_moved=m * n * 4 + (m + n) * 16, torchvision=torchvision.__version__)


if __name__ == "__main__":
    main()
