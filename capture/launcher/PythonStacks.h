#pragma once
// Python call stacks (--python-sampling) joined with native CPU samples (-s process-tree).
//
// The Python sampler and the native sampler run on their own clocks; a native sample inside
// a Python thread shows the interpreter (_PyEval_EvalFrameDefault, libpython+0x...) where the
// user wants Python functions. Each native sample takes the Python stack of its thread's
// Python sample nearest in time, at most one Python sampling period away, and the two are
// spliced (splice()): the native frames from the leaf up to the first frame in the Python
// interpreter (the C code Python called: libc, numpy, the kernel), then the Python frames; the
// interpreter frames and what lies under them (Py_RunMain, main) are left out. A native stack
// whose frame-pointer chain broke before reaching the interpreter (CPython is built without
// frame pointers) keeps all of its frames, with the Python frames after them.
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace sl::capture {

class PythonStacks {
public:
    // Python samples of a thread arrive in time order per stream; `stack` is a report call
    // stack id (ReportBuilder::stackId of Python frames, leaf first).
    void add(int64_t pid, int64_t tid, int64_t time, uint32_t stack);
    // After the last add(): sorts each thread's samples by time.
    void finish();
    // The stack of the sample of (pid, tid) nearest to `time`, if one is within `tolerance`
    // ns; UINT32_MAX otherwise.
    uint32_t nearest(int64_t pid, int64_t tid, int64_t time, int64_t tolerance) const;
    size_t samples() const { return m_count; }
    bool empty() const { return m_count == 0; }

    // The joined stack (leaf first): native[0, first interpreter frame) then `python`, or all
    // of `native` then `python` when no frame is the interpreter's.
    // `isInterpreter(i)`: whether native frame i lies in the Python interpreter.
    template <class IsInterpreter>
    static std::vector<uint32_t> splice(std::span<const uint32_t> native,
                                        std::span<const uint32_t> python,
                                        IsInterpreter isInterpreter) {
        std::vector<uint32_t> out;
        out.reserve(native.size() + python.size());
        for (size_t i = 0; i < native.size() && !isInterpreter(i); ++i) out.push_back(native[i]);
        out.insert(out.end(), python.begin(), python.end());
        return out;
    }
    // Whether a module path is the Python interpreter: a python executable (python3,
    // python3.12, python3.13d) or libpython (libpython3.11.so.1.0).
    static bool isInterpreterModule(std::string_view path);

private:
    struct Sample {
        int64_t time;
        uint32_t stack;
    };
    std::map<std::pair<int64_t, int64_t>, std::vector<Sample>> m_threads;
    size_t m_count = 0;
};

}  // namespace sl::capture
