#pragma once
// Where CPython 3.11, 3.12 and 3.13 (x86-64 and other LP64 targets, release builds) keep what a
// backtrace needs: the thread's current frame, each frame's code object, caller and instruction,
// and a code object's names. Read with offsetof() against each version's own headers
// (Include/internal/pycore_frame.h, cpython/code.h, cpython/unicodeobject.h, cpython/pystate.h)
// of Debian's 3.11.2 and CPython 3.11.7, 3.12.1 and 3.13.0, which agree within a minor version:
// CPython keeps these structures fixed within a minor release. A build that differs (a debug
// build, a patched interpreter) is caught by the check the start-up hook runs before any
// backtrace is taken (PythonBacktrace.h): its own stack, read both ways, must agree.
#include <cstddef>
#include <cstdint>

namespace sl::inject {

struct PythonLayout {
    uint32_t minor;  // 3.minor
    // PyThreadState -> current _PyInterpreterFrame: through tstate->cframe (3.11, 3.12) or
    // directly (3.13: cframeOffset is kNone).
    size_t cframeOffset;        // PyThreadState.cframe
    size_t currentFrameOffset;  // _PyCFrame.current_frame, or PyThreadState.current_frame
    // _PyInterpreterFrame
    size_t frameCode;      // f_code (3.11, 3.12) / f_executable (3.13)
    size_t framePrevious;  // previous
    size_t frameInstr;     // prev_instr (the last instruction run) / instr_ptr (3.13: the current)
    size_t frameOwner;     // owner (char)
    int ownedByGenerator;  // FRAME_OWNED_BY_GENERATOR
    int ownedByCStack;     // FRAME_OWNED_BY_CSTACK (3.12+: entry shims), -1 when none
    // PyCodeObject
    size_t codeQualname, codeFilename;
    size_t codeAdaptive;        // co_code_adaptive: the instructions (_PyCode_CODE)
    size_t codeFirstTraceable;  // _co_firsttraceable (int)
    // str objects: compact ASCII text follows the PyASCIIObject header; other compact strings
    // may carry a cached UTF-8 copy.
    size_t asciiHeader;  // sizeof(PyASCIIObject)
    size_t strLength;    // PyASCIIObject.length
    size_t strState;     // PyASCIIObject.state (a bit field in a uint32)
    uint32_t stateCompact, stateAscii;
    size_t compactUtf8, compactUtf8Length;  // PyCompactUnicodeObject.utf8, .utf8_length
};

inline constexpr size_t kNone = SIZE_MAX;

inline constexpr PythonLayout kPythonLayouts[] = {
    {11, 56, 8, 32, 48, 56, 69, 1, -1, 128, 112, 184, 168, 48, 16, 32, 0x20, 0x40, 56, 48},
    {12, 56, 0, 0, 8, 56, 70, 1, 3, 128, 112, 192, 176, 40, 16, 32, 0x20, 0x40, 48, 40},
    {13, kNone, 72, 0, 8, 56, 70, 1, 3, 128, 112, 200, 184, 40, 16, 32, 0x20, 0x40, 48, 40},
};

inline const PythonLayout* pythonLayoutFor(uint32_t minor) {
    for (const PythonLayout& l : kPythonLayouts)
        if (l.minor == minor) return &l;
    return nullptr;
}

}  // namespace sl::inject
