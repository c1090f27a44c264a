"""GPU end-to-end client for `-t cublas,cudnn,nccl` and --cudabacktrace: PyTorch work that goes
through cuBLAS (matmul, linear), cuDNN (conv2d forward and backward) and NCCL (all_reduce and
broadcast in a one-rank process group).

    python3 torch_libs.py [EXPECTATIONS_FILE]

Writes key=value lines the GPU run checks the report against: how many operations of each
library the program made (a floor for the calls captured: one PyTorch operation makes one or more
library calls). Exits 77 when PyTorch or a CUDA device is missing; NCCL is skipped (nccl_ops=0)
where PyTorch was built without it.
"""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: PyTorch sees no CUDA device")
    sys.exit(77)

dev = torch.device("cuda")
torch.manual_seed(0)
torch.backends.cudnn.enabled = True

# cuBLAS: plain matrix products (cublasSgemm/GemmEx or cuBLASLt, as PyTorch chooses).
matmuls = 20
a = torch.randn(512, 512, device=dev)
b = torch.randn(512, 512, device=dev)
for _ in range(matmuls):
    a = torch.mm(a, b) * 0.01

# cuDNN: a small convolution, forward and backward.
convs = 10
conv = torch.nn.Conv2d(3, 16, 3, padding=1).to(dev)
img = torch.randn(8, 3, 64, 64, device=dev, requires_grad=True)
for _ in range(convs):
    conv(img).sum().backward()
torch.cuda.synchronize()

# NCCL: a one-rank process group (no other process needed).
nccl_ops = 0
allreduces = 5
nccl_elements = 1 << 20
try:
    import torch.distributed as dist
    if dist.is_available() and dist.is_nccl_available():
        port = 29500 + os.getpid() % 1000
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
        t = torch.ones(nccl_elements, device=dev)
        for _ in range(allreduces):
            dist.all_reduce(t)
            nccl_ops += 1
        dist.broadcast(t, src=0)
        nccl_ops += 1
        torch.cuda.synchronize()
        dist.destroy_process_group()
except Exception as e:  # a missing NCCL must not hide the cuBLAS/cuDNN results
    print(f"NCCL part not run: {type(e).__name__}: {e}")
    nccl_ops = 0

print(f"matmuls={matmuls} convs={convs} nccl_ops={nccl_ops} checksum={float(a.abs().sum()):.3f}")
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        f.write(f"matmuls={matmuls}\nconvs={convs}\nnccl_ops={nccl_ops}\n"
                f"allreduces={allreduces if nccl_ops else 0}\nbroadcasts={1 if nccl_ops else 0}\n"
                f"nccl_elements={nccl_elements}\n")
