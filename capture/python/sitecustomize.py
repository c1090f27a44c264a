# Sightline's start-up hook for `sightline profile --python-functions-trace`: Python imports
# `sitecustomize` at start-up from the first directory of sys.path that has one, and the
# profiler puts this directory first in PYTHONPATH. It starts the function trace, then runs the
# sitecustomize this one shadows (Debian's, a virtual environment's, the user's), so the program
# starts as it would without Sightline. Any failure here is reported and never stops the program.
import sys


def _sightline_start():
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    try:
        import sightline_pytrace

        sightline_pytrace.start()
    except Exception as e:  # the program runs untraced rather than not at all
        sys.stderr.write("sightline: Python hook not started: %r\n" % (e,))
    # Our directory leaves sys.path (the program sees its own path), then the next
    # sitecustomize, if any, runs as Python would have run it.
    sys.path[:] = [p for p in sys.path if p.rstrip("/") != here.rstrip("/")]
    # importlib expects a module under this name once this one has run: the shadowed one if
    # there is one, else this one.
    me = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401  (the shadowed one)
    except ImportError as e:
        sys.modules["sitecustomize"] = me
        if getattr(e, "name", None) != "sitecustomize":
            raise


_sightline_start()
del _sightline_start
