"""GPU end-to-end client: a small PyTorch training loop with torch.cuda.nvtx ranges.

    [TORCH_TRAIN_SHAPE=small|large] python3 torch_train.py [STEPS] [EXPECTATIONS_FILE]

Prints the wall time of the loop (used for the overhead figure: run it plain and under
`sightline profile -t cuda,nvtx`). Exits 77 when PyTorch or a CUDA device is missing.
The shape: "small" (the default) is launch-bound, its GPU idle most of the time, so every
microsecond a launch costs shows in the loop's time; "large" (wider layers, a bigger batch,
the same 3 layers and the same kernels per step) keeps the GPU busy, as most training does,
and the CPU's launches run ahead of it.
"""
import os
import sys
import time

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: PyTorch sees no CUDA device")
    sys.exit(77)

# shape: (batch, input width, hidden width, classes)
SHAPES = {"small": (256, 1024, 2048, 10), "large": (2048, 4096, 8192, 1000)}
shape = os.environ.get("TORCH_TRAIN_SHAPE", "small")
if shape not in SHAPES:
    print(f"torch_train.py: TORCH_TRAIN_SHAPE={shape!r} is not one of {', '.join(SHAPES)}")
    sys.exit(2)
batch, width, hidden, classes = SHAPES[shape]
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
dev = torch.device("cuda")
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(width, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, width), torch.nn.ReLU(),
    torch.nn.Linear(width, classes)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
x = torch.randn(batch, width, device=dev)
y = torch.randint(0, classes, (batch,), device=dev)

# Warm-up outside the timing (cuBLAS handles, kernel selection).
for _ in range(5):
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
torch.cuda.synchronize()

t0 = time.perf_counter()
for step in range(steps):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("forward")
    loss = loss_fn(model(x), y)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    opt.zero_grad()
    loss.backward()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("optimizer")
    opt.step()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
wall = time.perf_counter() - t0
print(f"shape={shape} steps={steps} seconds={wall:.6f} loss={loss.item():.4f}")
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        f.write(f"steps={steps}\nnvtx_ranges=step,forward,backward,optimizer\nmin_kernels={steps * 10}\n"
                f"linear_layers=3\ntotal_steps={steps + 5}\n")  # with the warm-up's
