"""A stand-in for PyTorch with the parts of its API that `sightline profile --pytorch` uses,
for tests on machines without PyTorch (tests/capture/PythonCaptureTest.cpp; real PyTorch runs
in tests/gpu/run_gpu_tests.sh where a GPU is lent). It behaves as PyTorch documents it:

  - torch.autograd.profiler.emit_nvtx(enabled, record_shapes): entering synchronizes CUDA
    (torch.cuda.synchronize, which initializes it), then every operator emits an NVTX range
    "aten::NAME, seq = N", with ", sizes = [[..], ..]" when record_shapes;
  - torch.nn.modules.module.register_module_forward_pre_hook / register_module_forward_hook
    (always_call=) run around every Module.__call__;
  - torch.optim.optimizer.register_optimizer_step_pre_hook / _post_hook run around step();
  - Tensor.backward() calls torch.autograd.backward through the module attribute.

NVTX ranges go through the `nvtx` package (the test virtual environment has it)."""
import sys
import types

import nvtx

__version__ = "0.0+standin"

_profiler = None  # {"shapes": bool} while emit_nvtx is entered
_seq = [0]


def _op(name, tensors):
    if _profiler is None:
        return None
    _seq[0] += 1
    text = "aten::%s, seq = %d" % (name, _seq[0])
    if _profiler["shapes"]:
        text += ", sizes = [%s]" % ", ".join("[%s]" % ", ".join(str(d) for d in t.shape) for t in tensors)
    nvtx.push_range(text)
    return True


def _end(pushed):
    if pushed:
        nvtx.pop_range()


class Tensor:
    dtype = "float32"

    def __init__(self, *shape):
        self.shape = tuple(shape)

    def backward(self):
        autograd.backward(self)


def randn(*shape):
    return Tensor(*shape)


# torch.cuda
cuda = types.ModuleType("torch.cuda")
cuda._initialized = False
cuda.is_initialized = lambda: cuda._initialized


def _synchronize(device=None):
    cuda._initialized = True  # as PyTorch: synchronizing initializes CUDA


cuda.synchronize = _synchronize

# torch.autograd, torch.autograd.profiler
autograd = types.ModuleType("torch.autograd")
profiler = types.ModuleType("torch.autograd.profiler")
autograd.profiler = profiler


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.enabled, self.record_shapes, self.entered = enabled, record_shapes, False

    def __enter__(self):
        global _profiler
        import os

        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        cuda.synchronize()
        if os.environ.get("TORCH_STANDIN_NO_NVTX"):  # as a build without CUDA
            raise RuntimeError("Can't use NVTX profiler - PyTorch was compiled without CUDA")
        _profiler = {"shapes": self.record_shapes}
        return self

    def __exit__(self, *exc):
        global _profiler
        _profiler = None
        return False


profiler.emit_nvtx = emit_nvtx


def _backward(tensors, grad_tensors=None):
    for t in tensors if isinstance(tensors, (list, tuple)) else [tensors]:
        for name in ("mse_loss_backward", "mm_backward"):
            _end(_op(name, [t]))


autograd.backward = _backward

# torch.nn, torch.nn.modules.module
nn = types.ModuleType("torch.nn")
nn.modules = types.ModuleType("torch.nn.modules")
module = types.ModuleType("torch.nn.modules.module")
nn.modules.module = module
_pre_hooks, _post_hooks = [], []


def register_module_forward_pre_hook(hook):
    _pre_hooks.append(hook)


def register_module_forward_hook(hook, *, always_call=False):
    _post_hooks.append((hook, always_call))


module.register_module_forward_pre_hook = register_module_forward_pre_hook
module.register_module_forward_hook = register_module_forward_hook


class Module:
    def __call__(self, *args):
        for hook in _pre_hooks:
            hook(self, args)
        try:
            out = self.forward(*args)
        except BaseException:
            for hook, always in _post_hooks:
                if always:
                    hook(self, args, None)
            raise
        for hook, _ in _post_hooks:
            hook(self, args, out)
        return out


class Linear(Module):
    def __init__(self, n_in, n_out):
        self.n_out = n_out

    def forward(self, x):
        pushed = _op("linear", [x])
        out = Tensor(x.shape[0], self.n_out)
        _end(pushed)
        return out


class ReLU(Module):
    def forward(self, x):
        _end(_op("relu", [x]))
        return x


class Sequential(Module):
    def __init__(self, *layers):
        self.layers = layers

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


nn.Module, nn.Linear, nn.ReLU, nn.Sequential = Module, Linear, ReLU, Sequential

# torch.optim, torch.optim.optimizer
optim = types.ModuleType("torch.optim")
optimizer = types.ModuleType("torch.optim.optimizer")
optim.optimizer = optimizer
_step_pre, _step_post = [], []
optimizer.register_optimizer_step_pre_hook = _step_pre.append
optimizer.register_optimizer_step_post_hook = _step_post.append


class SGD:
    def __init__(self, params=None, lr=0.01):
        self.lr = lr

    def step(self):
        for hook in _step_pre:
            hook(self, (), {})
        _end(_op("add_", []))
        for hook in _step_post:
            hook(self, (), {})


optim.SGD = SGD

for _name, _mod in (("torch.cuda", cuda), ("torch.autograd", autograd),
                    ("torch.autograd.profiler", profiler), ("torch.nn", nn),
                    ("torch.nn.modules", nn.modules), ("torch.nn.modules.module", module),
                    ("torch.optim", optim), ("torch.optim.optimizer", optimizer)):
    sys.modules[_name] = _mod
