"""nms.py: the nms lab's peer, torchvision.ops.nms, at the bench shapes (10 000 and 50 000
boxes, threshold 0.5).

Boxes follow the lab's bench distribution (`clusters` in grader/labs/nms.c): n / 16
objects with integer sides in [8, 96] on a 2048 canvas, each seen by about 16 boxes whose
edges jitter by up to 15% of the object's size; scores uniform in [0, 1). Four input sets
are rotated. The lab's metric is boxes per second; the number of kept boxes is printed to
compare with the lab's reference on the same distribution."""
import torch
import torchvision

from _timing import emit, time_ms


def clustered(n, gen, canvas=2048, size=96, cluster=16):
    dev = "cuda"
    objects = max(1, n // cluster)
    w = torch.randint(8, size + 1, (objects,), generator=gen, device=dev)
    h = torch.randint(8, size + 1, (objects,), generator=gen, device=dev)
    cx = (w // 2 + torch.rand(objects, generator=gen, device=dev) * (canvas - w)).floor()
    cy = (h // 2 + torch.rand(objects, generator=gen, device=dev) * (canvas - h)).floor()
    k = torch.randint(0, objects, (n,), generator=gen, device=dev)
    jx, jy = (w[k] * 15 // 100 + 1), (h[k] * 15 // 100 + 1)

    def jitter(j):
        return (torch.rand(n, generator=gen, device=dev) * (2 * j + 1)).floor() - j

    x1 = (cx[k] - w[k] // 2 + jitter(jx)).clamp(0, canvas - 2)
    y1 = (cy[k] - h[k] // 2 + jitter(jy)).clamp(0, canvas - 2)
    x2 = torch.maximum(cx[k] + w[k] // 2 + jitter(jx), x1 + 1).clamp(max=canvas - 1)
    y2 = torch.maximum(cy[k] + h[k] // 2 + jitter(jy), y1 + 1).clamp(max=canvas - 1)
    boxes = torch.stack([x1, y1, x2, y2], dim=1).float().contiguous()
    scores = torch.rand(n, generator=gen, device=dev)
    return boxes, scores


def main():
    gen = torch.Generator(device="cuda").manual_seed(1)
    for n in (10000, 50000):
        sets = [clustered(n, gen) for _ in range(4)]
        state = {"k": 0}
        kept = []

        def rotate():
            state["k"] = (state["k"] + 1) % len(sets)

        def call():
            kept.append(torchvision.ops.nms(*sets[state["k"]], 0.5))

        timing = time_ms(call, before=rotate)
        counts = sorted(int(k.numel()) for k in kept)
        emit("nms", f"{n} boxes", "torchvision.ops.nms", timing, items=n, items_unit="boxes",
             boxes_per_s=n / (timing[0] * 1e-3), kept_median=counts[len(counts) // 2],
             torchvision=torchvision.__version__)


if __name__ == "__main__":
    main()
