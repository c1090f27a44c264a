"""A training loop of three steps on the PyTorch stand-in (torch_standin/), or, with "--no-torch",
a Python program that never imports torch. Prints whether CUDA got initialized (it must not be
by the profiler: the program itself never synchronizes)."""
import os
import sys

if "--no-torch" in sys.argv:
    print("no torch")
    sys.exit(0)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_standin"))
import torch  # noqa: E402

model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(lr=0.1)
x = torch.randn(64, 128)
for step in range(3):
    y = model(x)
    y.backward()
    opt.step()
print("cuda initialized:", torch.cuda.is_initialized())
