"""Sightline's Python hook: the function trace (`--python-functions-trace=FILE`), the
Python call-stack sampler (`--python-sampling`), PyTorch's annotations (`--pytorch`) and the
check that lets the injected library read Python stacks at recorded calls
(`--python-backtrace`).

The profiler checks FILE (nsys's JSON format) and writes the functions it lists as a plain
table (capture/launcher/PythonFunctionsConfig.h); this module reads that table and turns each
call of a listed function into an NVTX range, recorded by the injected library through its C
entry points (capture/inject/PythonTraceApi.cpp), in every thread:
  - Python functions: sys.monitoring (Python >= 3.12) with events on their code objects only,
    so other code runs at full speed; sys.setprofile and threading.setprofile before 3.12;
  - built-in functions (time.sleep): on Python < 3.12 the same profile function sees their
    c_call and c_return; on >= 3.12 the attribute is replaced by a thin wrapper.
Modules are resolved when imported (a finder on sys.meta_path), or at once if already loaded.

The sampler is a thread of its own (started with _thread, so threading.enumerate() and
active_count() do not see it) that wakes HZ times a second, takes every other thread's Python
stack with sys._current_frames() and hands it to the injected library as frame ids (each
distinct function, file and line defined once). It runs again in a forked child.
"""
import _thread
import ctypes
import os
import sys
import threading
import time

_TABLE_ENV = "SIGHTLINE_PYTHON_FUNCTIONS"
_SAMPLING_ENV = "SIGHTLINE_PYTHON_SAMPLING_HZ"
_sleep = time.sleep  # taken before the function trace may wrap it
_monotonic = time.monotonic

_lib = None
_push = _pop = None
_by_module = {}       # module name -> [(dotted function path, id)]
_codes = {}           # code object -> id (Python functions)
_builtins = {}        # id(builtin) -> id (Python < 3.12: matched in c_call)
_pending_lock = threading.Lock()
_on_import = {}       # module name -> [callback(module)], run once the module has been imported
_finder = None


def _load_table(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 6:
                continue
            domain, module, function, color, category, category_name = fields
            entries.append((domain, module, function, int(color), int(category), category_name))
    return entries


def _resolve(root, dotted):
    obj = root
    owner = None
    for part in dotted.split("."):
        owner = obj
        obj = getattr(obj, part)
    return owner, dotted.rsplit(".", 1)[-1], obj


def _code_of(obj):
    # Plain functions, bound methods and classmethods (through __func__), and functools.wraps
    # wrappers (the wrapper is what runs; its own code is traced).
    if hasattr(obj, "__code__"):
        return obj.__code__
    func = getattr(obj, "__func__", None)
    if func is not None and hasattr(func, "__code__"):
        return func.__code__
    return None


def _wrap_builtin(fn, rid):
    push, pop = _push, _pop

    def traced(*args, **kwargs):
        push(rid)
        try:
            return fn(*args, **kwargs)
        finally:
            pop(rid)

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(traced, attr, getattr(fn, attr))
        except (AttributeError, TypeError):
            pass
    traced.__wrapped__ = fn
    return traced


def _attach(module):
    for dotted, rid in _by_module.pop(module.__name__, ()):
        try:
            owner, name, obj = _resolve(module, dotted)
        except AttributeError:
            sys.stderr.write("sightline: --python-functions-trace: %s has no %s; not traced\n"
                             % (module.__name__, dotted))
            continue
        code = _code_of(obj)
        if code is not None:
            _codes[code] = rid
            if _monitoring is not None:
                _monitoring.set_local_events(_tool, code, _LOCAL_EVENTS)
        elif callable(obj):
            if _monitoring is None:
                _builtins[id(obj)] = rid
            else:
                try:
                    setattr(owner, name, _wrap_builtin(obj, rid))
                except (AttributeError, TypeError):
                    sys.stderr.write("sightline: --python-functions-trace: cannot trace %s.%s "
                                     "(read-only)\n" % (module.__name__, dotted))


class _Finder:
    """On sys.meta_path: lets the real finders find a listed module, then attaches its
    functions once it has run."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _by_module and fullname not in _on_import:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _Loader(spec.loader)
                return spec
            if spec is not None:
                return spec
        return None


class _Loader:
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # The module keeps its real loader (code that inspects __loader__ sees no difference).
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        with _pending_lock:
            _attach(module)
            callbacks = _on_import.pop(module.__name__, ())
        for callback in callbacks:
            callback(module)

    def __getattr__(self, name):  # get_source, is_package, ... of the real loader
        return getattr(self._loader, name)


# ---- the two ways of seeing calls ----
_monitoring = getattr(sys, "monitoring", None)
_tool = None
_LOCAL_EVENTS = 0


def _start_monitoring():
    global _tool, _LOCAL_EVENTS
    m = _monitoring
    for tool in (m.PROFILER_ID, 5, 4, 3):
        if m.get_tool(tool) is None:
            _tool = tool
            break
    else:
        return False
    m.use_tool_id(_tool, "sightline")
    E = m.events
    # A generator or coroutine: a range per time it runs (start or resume to yield or return).
    _LOCAL_EVENTS = E.PY_START | E.PY_RESUME | E.PY_RETURN | E.PY_YIELD
    codes, push, pop = _codes, _push, _pop

    def enter(code, offset):
        rid = codes.get(code)
        if rid:
            push(rid)

    def leave(code, offset, value):
        rid = codes.get(code)
        if rid:
            pop(rid)

    m.register_callback(_tool, E.PY_START, enter)
    m.register_callback(_tool, E.PY_RESUME, enter)
    m.register_callback(_tool, E.PY_THROW, lambda code, offset, exc: enter(code, offset))
    m.register_callback(_tool, E.PY_RETURN, leave)
    m.register_callback(_tool, E.PY_YIELD, leave)
    m.register_callback(_tool, E.PY_UNWIND, lambda code, offset, exc: leave(code, offset, None))
    # Leaving by an exception and resuming by throw() are not local events: set for all code,
    # they cost only where exceptions propagate.
    m.set_events(_tool, E.PY_UNWIND | E.PY_THROW)
    return True


def _start_profile():
    codes, builtins, push, pop = _codes, _builtins, _push, _pop

    def profile(frame, event, arg):
        if event == "call":
            rid = codes.get(frame.f_code)
            if rid:
                push(rid)
        elif event == "return":
            rid = codes.get(frame.f_code)
            if rid:
                pop(rid)
        elif event == "c_call":
            rid = builtins.get(id(arg))
            if rid:
                push(rid)
        elif event == "c_return" or event == "c_exception":
            rid = builtins.get(id(arg))
            if rid:
                pop(rid)

    threading.setprofile(profile)
    sys.setprofile(profile)


def _start_functions_trace(lib, path):
    global _push, _pop, _monitoring
    define = lib.sightline_pytrace_define
    define.restype = ctypes.c_uint32
    define.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                       ctypes.c_char_p]
    _push = lib.sightline_pytrace_push
    _pop = lib.sightline_pytrace_pop
    for f in (_push, _pop):
        f.restype = None
        f.argtypes = [ctypes.c_uint32]
    for domain, module, function, color, category, category_name in _load_table(path):
        rid = define(domain.encode(), function.encode(), color, category, category_name.encode())
        if rid:
            _by_module.setdefault(module, []).append((function, rid))
    if not _by_module:
        return
    if _monitoring is not None and not _start_monitoring():
        sys.stderr.write("sightline: --python-functions-trace: every sys.monitoring tool id is "
                         "taken; using sys.setprofile\n")
        _monitoring = None
    if _monitoring is None:
        _start_profile()
    with _pending_lock:
        for name in list(_by_module):
            if name in sys.modules:
                _attach(sys.modules[name])
    _install_finder()


def _install_finder():
    global _finder
    if _finder is None:
        _finder = _Finder()
        sys.meta_path.insert(0, _finder)


def _when_imported(name, callback):
    """Runs callback(module) once module `name` has been imported (now, if it already is)."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _pending_lock:
        _on_import.setdefault(name, []).append(callback)
    _install_finder()


_MAX_DEPTH = 512


def _start_sampler(lib, hz):
    define = lib.sightline_pyframe_define
    define.restype = ctypes.c_uint32
    define.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int64]
    sample = lib.sightline_pysample
    sample.restype = None
    sample.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_uint32]
    tool_thread = lib.sightline_pytool_thread
    tool_thread.restype = None
    tool_thread.argtypes = []
    interval = 1.0 / hz
    frame_ids = {}  # (code, instruction offset) -> id; 0: could not be defined
    line_ids = {}  # (code, line) -> id: the frame definitions (function, file, line)
    current_frames = sys._current_frames
    active = threading._active  # ident -> Thread (native_id): the threads Python knows

    running = {}  # the sampler thread: its stop lock, its exit lock and its OS thread id
    # In a forked child, the thread that forked (its only one) keeps the parent's native_id in
    # threading (3.11 to 3.13): its own OS thread id, by ident.
    forked = {}

    def loop(stop, exited, started):
        me = _thread.get_ident()
        running["tid"] = _thread.get_native_id()
        tool_thread()  # not the program's thread: left out of its rows
        started.release()
        buf = (ctypes.c_uint32 * _MAX_DEPTH)()
        due = _monotonic()
        try:
            while True:
                due += interval
                wait = due - _monotonic()
                if wait <= 0:
                    due = _monotonic()  # behind (the GIL was busy): no burst to catch up
                    wait = 0
                if stop.acquire(timeout=wait):  # a sleep that fork() can cut short
                    return
                for ident, frame in current_frames().items():
                    if ident == me:
                        continue
                    tid = forked.get(ident)
                    if tid is None:
                        thread = active.get(ident)
                        tid = getattr(thread, "native_id", None) if thread is not None else None
                    if tid is None:
                        continue
                    n = 0
                    while frame is not None and n < _MAX_DEPTH:
                        # Keyed by the instruction, not the line: f_lineno decodes the line
                        # table on every read, f_lasti is a subtraction.
                        code = frame.f_code
                        key = (code, frame.f_lasti)
                        fid = frame_ids.get(key)
                        if fid is None:
                            line = frame.f_lineno or 0
                            fid = line_ids.get((code, line))
                            if fid is None:
                                name = getattr(code, "co_qualname", code.co_name)
                                fid = define(name.encode("utf-8", "replace"),
                                             code.co_filename.encode("utf-8", "replace"), line)
                                line_ids[(code, line)] = fid
                            frame_ids[key] = fid
                        if fid:
                            buf[n] = fid
                            n += 1
                        frame = frame.f_back
                    if n:
                        sample(tid, buf, n)
                frame = None
        finally:
            exited.release()

    def launch():
        stop, exited = _thread.allocate_lock(), _thread.allocate_lock()
        stop.acquire()
        exited.acquire()
        running.update(stop=stop, exited=exited, tid=None)  # (relaunch stays)
        # Wait until the thread has said it is ours: a process that ends right after (a parent
        # whose fork returned last) would otherwise leave a thread the merge cannot tell apart
        # from the program's.
        started = _thread.allocate_lock()
        started.acquire()
        _thread.start_new_thread(loop, (stop, exited, started))
        started.acquire(timeout=1.0)

    def before_fork():
        # The sampler leaves before fork(): a child gets no half-held lock of ours, and Python
        # 3.12+ counts the process's threads at fork() to warn about them, so the program must
        # not see ours. Its OS thread is awaited (at most 0.1 s) for that count.
        stop, exited, tid = running.get("stop"), running.get("exited"), running.get("tid")
        if stop is None:
            return
        for key in ("stop", "exited", "tid"):
            running.pop(key, None)
        stop.release()
        exited.acquire(timeout=1.0)
        if tid:
            task = "/proc/self/task/%d" % tid
            deadline = _monotonic() + 0.1
            while os.path.exists(task) and _monotonic() < deadline:
                _sleep(0.0002)

    # In the parent the sampler comes back at once where Python counts the threads before its
    # after_in_parent hooks (3.12; 3.11 does not count). 3.13 counts them after, so a thread
    # started in a hook would be seen: there it comes back once fork() has returned to the
    # Python code that called it. A profile function on this thread, for this one return,
    # notices it (then hands the thread back to the profile function it had, if any).
    def after_in_parent():
        if sys.version_info < (3, 13):
            launch()
            return
        caller = sys._getframe(1)  # the frame that called os.fork (hooks are called from C)
        previous = sys.getprofile()

        def until_fork_returns(frame, event, arg):
            if previous is not None:
                previous(frame, event, arg)
            if frame is caller and event in ("c_return", "c_exception", "return"):
                sys.setprofile(previous)
                launch()

        sys.setprofile(until_fork_returns)

    def after_in_child():
        forked.clear()
        forked[_thread.get_ident()] = _thread.get_native_id()
        launch()

    launch()
    os.register_at_fork(before=before_fork, after_in_parent=after_in_parent,
                        after_in_child=after_in_child)


# ---- --pytorch ----
_PYTORCH_ENV = "SIGHTLINE_PYTORCH"
_keep = []  # what must live as long as the process (the entered emit_nvtx)


def _enable_emit_nvtx(torch, record_shapes):
    # PyTorch's own NVTX ranges per autograd operator ("aten::linear, seq = 12"), as
    # `with torch.autograd.profiler.emit_nvtx(record_shapes=...)` around the whole program.
    # Entering it synchronizes CUDA, which would initialize CUDA in a program that has not
    # (yet) used it, or never will: a fork-based DataLoader then fails. It is skipped then.
    prof = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=record_shapes)
    cuda = getattr(torch, "cuda", None)
    sync = getattr(cuda, "synchronize", None)
    skip_sync = sync is not None and not cuda.is_initialized()
    if skip_sync:
        cuda.synchronize = lambda *args, **kwargs: None
    try:
        prof.__enter__()
    finally:
        if skip_sync:
            cuda.synchronize = sync
    _keep.append(prof)


def _shapes(values):
    parts = []
    for v in values:
        shape = getattr(v, "shape", None)
        if shape is not None and hasattr(v, "dtype"):
            parts.append("x".join(str(d) for d in shape) or "scalar")
    return " [" + ", ".join(parts) + "]" if parts else ""


def _enable_functions_trace(torch, lib, with_shapes):
    # NVTX ranges (default domain) for each module's forward ("Linear.forward"), each backward
    # pass ("backward") and each optimizer step ("SGD.step"), through PyTorch's global hooks.
    define = lib.sightline_pytrace_define
    define.restype = ctypes.c_uint32
    define.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                       ctypes.c_char_p]
    push = lib.sightline_pytrace_push
    pop = lib.sightline_pytrace_pop
    for f in (push, pop):
        f.restype = None
        f.argtypes = [ctypes.c_uint32]
    push_text = lib.sightline_pytrace_push_text
    push_text.restype = None
    push_text.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    ids = {}

    def range_id(name):
        rid = ids.get(name)
        if rid is None:
            rid = ids[name] = define(b"", name.encode("utf-8", "replace"), 0, 0, b"")
        return rid

    def forward_pre(module, args):
        rid = range_id(type(module).__name__ + ".forward")
        if with_shapes:
            push_text(rid, (type(module).__name__ + ".forward" + _shapes(args)).encode())
        else:
            push(rid)

    def forward_post(module, args, output):
        pop(range_id(type(module).__name__ + ".forward"))

    hooks = torch.nn.modules.module
    hooks.register_module_forward_pre_hook(forward_pre)
    try:  # PyTorch >= 2.0: also when forward raises
        hooks.register_module_forward_hook(forward_post, always_call=True)
    except TypeError:
        hooks.register_module_forward_hook(forward_post)

    backward = torch.autograd.backward
    backward_id = range_id("backward")

    def traced_backward(*args, **kwargs):
        push(backward_id)
        try:
            return backward(*args, **kwargs)
        finally:
            pop(backward_id)

    traced_backward.__wrapped__ = backward
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(traced_backward, attr, getattr(backward, attr, None))
    torch.autograd.backward = traced_backward  # Tensor.backward calls it through the module

    optim = getattr(getattr(torch, "optim", None), "optimizer", None)
    if optim is not None and hasattr(optim, "register_optimizer_step_pre_hook"):
        optim.register_optimizer_step_pre_hook(
            lambda opt, args, kwargs: push(range_id(type(opt).__name__ + ".step")))
        optim.register_optimizer_step_post_hook(
            lambda opt, args, kwargs: pop(range_id(type(opt).__name__ + ".step")))


def _start_pytorch(lib, modes):
    state = lib.sightline_pytorch_state
    state.restype = None
    state.argtypes = [ctypes.c_int32, ctypes.c_char_p]

    def on_torch(torch):
        # Each kind of annotation on its own: one that fails leaves the other on.
        version = str(getattr(torch, "__version__", "?"))
        on, failed = [], []
        autograd = [m for m in modes if m in ("autograd-nvtx", "autograd-shapes-nvtx")]
        functions = [m for m in modes if m in ("functions-trace", "functions-trace-shapes")]
        for chosen, enable in (
                (autograd, lambda: _enable_emit_nvtx(torch, "autograd-shapes-nvtx" in modes)),
                (functions, lambda: _enable_functions_trace(torch, lib,
                                                            "functions-trace-shapes" in modes))):
            if not chosen:
                continue
            try:
                enable()
                on += chosen
            except Exception as e:  # the program runs unannotated rather than not at all
                failed.append("%s: %s: %s" % (",".join(chosen), type(e).__name__, e))
        text = "torch %s: %s" % (version, ",".join(on) or "nothing on")
        if failed:  # said by the profiler at the end, not on the program's stderr
            text += "; failed: " + "; ".join(failed)
        state(2 if failed else 1, text.encode("utf-8", "replace"))

    _when_imported("torch", on_torch)


# ---- --python-backtrace ----
_BACKTRACE_ENV = "SIGHTLINE_PYTHON_BACKTRACE"


def _check_backtraces(enable):
    # The injected library reads Python stacks from the interpreter's structures; it takes
    # them only once it has read this very stack as Python says it is (function, file, line of
    # each caller; this frame's line is where it calls, so it is not compared).
    here = sys._getframe()
    lines = []
    f = here
    while f is not None and len(lines) < 3:
        code = f.f_code
        name = getattr(code, "co_qualname", code.co_name)
        lines.append("%s|%s|%s" % (name, code.co_filename, "-" if f is here else f.f_lineno))
        f = f.f_back
    return enable("\n".join(lines).encode("utf-8", "surrogateescape")) == 1


def _start_backtraces(lib):
    enable = lib.sightline_pybt_enable
    enable.restype = ctypes.c_int
    enable.argtypes = [ctypes.c_char_p]
    return _check_backtraces(enable)


def start():
    table = os.environ.get(_TABLE_ENV)
    hz = os.environ.get(_SAMPLING_ENV)
    pytorch = [m for m in os.environ.get(_PYTORCH_ENV, "").split(",") if m]
    backtraces = os.environ.get(_BACKTRACE_ENV)
    if not table and not hz and not pytorch and not backtraces:
        return
    try:
        lib = ctypes.CDLL(None)
        lib.sightline_pytrace_define
    except (OSError, AttributeError):
        return  # this process is not traced (no injected library): nothing to record into
    global _lib
    _lib = lib
    if table:
        _start_functions_trace(lib, table)
    if hz:
        _start_sampler(lib, max(1, min(int(hz), 2000)))
    if pytorch:
        _start_pytorch(lib, pytorch)
    if backtraces:
        _start_backtraces(lib)
