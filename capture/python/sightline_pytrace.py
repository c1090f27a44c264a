"""Sightline's Python function trace (`sightline profile --python-functions-trace=FILE`).

The profiler checks FILE (nsys's JSON format) and writes the functions it lists as a plain
table (capture/launcher/PythonFunctionsConfig.h); this module reads that table and turns each
call of a listed function into an NVTX range, recorded by the injected library through its C
entry points (capture/inject/PythonTraceApi.cpp), in every thread:
  - Python functions: sys.monitoring (Python >= 3.12) with events on their code objects only,
    so other code runs at full speed; sys.setprofile and threading.setprofile before 3.12;
  - built-in functions (time.sleep): on Python < 3.12 the same profile function sees their
    c_call and c_return; on >= 3.12 the attribute is replaced by a thin wrapper.
Modules are resolved when imported (a finder on sys.meta_path), or at once if already loaded.
"""
import ctypes
import os
import sys
import threading

_TABLE_ENV = "SIGHTLINE_PYTHON_FUNCTIONS"

_lib = None
_push = _pop = None
_by_module = {}       # module name -> [(dotted function path, id)]
_codes = {}           # code object -> id (Python functions)
_builtins = {}        # id(builtin) -> id (Python < 3.12: matched in c_call)
_pending_lock = threading.Lock()


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
        if fullname not in _by_module:
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


def start():
    global _lib, _push, _pop, _monitoring
    path = os.environ.get(_TABLE_ENV)
    if not path:
        return
    try:
        lib = ctypes.CDLL(None)
        define = lib.sightline_pytrace_define
    except (OSError, AttributeError):
        return  # this process is not traced (no injected library): nothing to record into
    define.restype = ctypes.c_uint32
    define.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                       ctypes.c_char_p]
    _push = lib.sightline_pytrace_push
    _pop = lib.sightline_pytrace_pop
    for f in (_push, _pop):
        f.restype = None
        f.argtypes = [ctypes.c_uint32]
    _lib = lib
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
    sys.meta_path.insert(0, _Finder())
