// Joining Python stacks with native CPU samples (capture/launcher/PythonStacks.h): which
// Python sample a native sample takes, and how the two stacks are spliced.
#include <gtest/gtest.h>

#include <vector>

#include "capture/launcher/PythonStacks.h"

using sl::capture::PythonStacks;

TEST(PythonStacks, NearestSampleOfTheSameThreadWithinTheTolerance) {
    PythonStacks py;
    py.add(1, 10, 1000, 7);
    py.add(1, 10, 3000, 8);
    py.add(1, 11, 2000, 9);
    py.add(1, 10, 2000, 6);  // out of order within a thread: finish() sorts
    py.finish();
    EXPECT_EQ(py.samples(), 4u);
    EXPECT_EQ(py.nearest(1, 10, 2100, 500), 6u);
    EXPECT_EQ(py.nearest(1, 10, 2900, 500), 8u);
    EXPECT_EQ(py.nearest(1, 10, 900, 500), 7u);
    EXPECT_EQ(py.nearest(1, 10, 3600, 500), UINT32_MAX);  // too far from the last one
    EXPECT_EQ(py.nearest(1, 11, 2000, 0), 9u);
    EXPECT_EQ(py.nearest(2, 10, 2000, 10'000), UINT32_MAX);  // another process's thread
    EXPECT_EQ(py.nearest(1, 12, 2000, 10'000), UINT32_MAX);
}

TEST(PythonStacks, SpliceKeepsTheCalledCodeThenThePythonFrames) {
    // Leaf first: memcpy (libc), two interpreter frames, main (python3.11), __libc_start_main.
    const std::vector<uint32_t> native{1, 2, 3, 4, 5};
    const std::vector<bool> interp{false, true, true, true, false};
    const std::vector<uint32_t> python{100, 101, 102};
    auto isInterp = [&](size_t i) { return bool(interp[i]); };
    EXPECT_EQ(PythonStacks::splice(native, python, isInterp),
              (std::vector<uint32_t>{1, 100, 101, 102}));
    // The leaf is in the interpreter (bytecode running): the Python frames alone.
    const std::vector<bool> leafInterp{true, true, false, false, false};
    EXPECT_EQ(PythonStacks::splice(native, python,
                                   [&](size_t i) { return bool(leafInterp[i]); }),
              python);
    // A frame-pointer chain that broke before the interpreter: all native frames, then Python.
    EXPECT_EQ(PythonStacks::splice(native, python, [](size_t) { return false; }),
              (std::vector<uint32_t>{1, 2, 3, 4, 5, 100, 101, 102}));
}

TEST(PythonStacks, InterpreterModules) {
    for (const char* path : {"/usr/bin/python3.11", "/usr/bin/python3", "python",
                             "/root/.pyenv/versions/3.13.0/bin/python3.13",
                             "/opt/py/bin/python3.13t", "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
                             "/x/libpython3.12d.so"})
        EXPECT_TRUE(PythonStacks::isInterpreterModule(path)) << path;
    for (const char* path : {"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python-config",
                             "/work/app.py", "/x/pythonista", "/x/libpython3.11.a",
                             "/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.so"})
        EXPECT_FALSE(PythonStacks::isInterpreterModule(path)) << path;
}
