#pragma once
// What the generated wrappers of a CUDA library (gen_wrappers.py: cuBLAS, cuDNN, NCCL) share:
// finding the real function, recording a call (Call) through the preloaded module's data path
// (capture/common/ModuleEventApi.h, decision 31), and the small state a call's columns need
// (each library handle's stream, each NCCL communicator's rank and size).
//
// Compiled into each library's module (libsightline-cublas.so, -cudnn.so, -nccl.so); nothing of
// it is visible outside the module except the wrapped functions and dlsym (CudaLibRuntime.cpp).
#include <array>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "capture/common/Clock.h"
#include "capture/common/Export.h"
#include "capture/common/ModuleEventClient.h"
#include "model/core/EventColumns.h"

namespace sl::cudalibs {

// One wrapped function: the dlsym hook returns `wrapper` for `name` looked up in a handle of the
// library, and fills `real` with what the library's handle gave.
struct WrappedFunction {
    const char* name;
    void* wrapper;
    std::atomic<void*>* real;
};
// Defined by the module's generated source: its functions sorted by name, and its kind.
extern const WrappedFunction g_wrapped[];
extern const size_t g_wrappedCount;
extern const EventKind kModuleKind;

// The library's definition of `name`: the next one after this module in the global scope, or
// the one of the library loaded with RTLD_LOCAL (found among the loaded objects by its file
// name). nullptr while the library is not loaded.
void* findReal(const char* name);

template <class F>
F resolve(std::atomic<void*>& slot, const char* name) {
    void* f = slot.load(std::memory_order_relaxed);
    if (!f) {
        f = findReal(name);
        if (f) slot.store(f, std::memory_order_relaxed);
    }
    return reinterpret_cast<F>(f);
}

template <class T>
T missing() {
    if constexpr (std::is_void_v<T>) return;
    else return T{};
}

template <class T>
int64_t bits(T v) {
    if constexpr (std::is_pointer_v<T>) return static_cast<int64_t>(reinterpret_cast<uintptr_t>(v));
    else return static_cast<int64_t>(v);
}

// A library handle's stream, as its SetStream calls left it (0: the default stream). Read
// before each call instead of asking the library (cublasGetStream after cublasDestroy would
// read freed memory).
int64_t streamOfHandle(int64_t handle);
void rememberStreamBits(int64_t handle, int64_t stream);
template <class H, class S>
void rememberStream(H h, S s) { rememberStreamBits(bits(h), bits(s)); }
template <class H>
void forgetHandle(H h) { rememberStreamBits(bits(h), 0); }

// An NCCL communicator's rank and size (ncclCommUserRank, ncclCommCount), asked once per
// communicator and cached; {-1, -1} when the library cannot say.
struct CommInfo { int32_t rank = -1, ranks = -1; };
CommInfo commInfo(int64_t comm);
// Bytes per element of an ncclDataType_t (0 unknown).
int64_t ncclTypeSize(int64_t datatype);

const capture::ModuleEventApi* api();
extern capture::LiteralNameIds g_names;
// Per library: only the outermost call of a thread is recorded (a library may call its own
// public functions through its PLT, and those land here too).
extern constinit thread_local int t_depth;

// One recorded call: opened before the library runs, its columns set by the wrapper.
template <EventKind K>
class Call {
public:
    explicit Call(const char* name) : m_name(name) {
        if (t_depth++ != 0) return;
        const capture::ModuleEventApi* a = api();
        if (!a || !a->recording()) return;
        m_on = true;
        m_start = m_end = capture::nowNs();
    }
    ~Call() {
        --t_depth;
        if (m_on) emit();
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    template <class H>
    void handle(H h) {
        if (!m_on) return;
        m_handle = bits(h);
        m_stream = streamOfHandle(m_handle);
    }
    template <class S>
    void stream(S s) { m_stream = bits(s); }
    void finish() { if (m_on) m_end = capture::nowNs(); }
    void status(int64_t s) { m_status = s; }
    // NCCL arguments.
    template <class C>
    void comm(C c) {
        if (!m_on) return;
        m_comm = bits(c);
        CommInfo i = commInfo(m_comm);
        if (i.ranks >= 0) {
            m_rank = i.rank;
            m_ranks = i.ranks;
        }
    }
    template <class C>
    void commOut(C* p) { m_commOut = reinterpret_cast<void* const*>(p); }
    void count(size_t n) { m_count = static_cast<int64_t>(n); }
    void datatype(int64_t t) { m_datatype = t; }
    void redop(int64_t op) { m_redop = op; }
    void peer(int p) { m_peer = p; }
    void rank(int r) { m_rank = r; }
    void ranks(int n) { m_ranks = n; }

private:
    void emit() {
        const capture::ModuleEventApi* a = api();
        const uint32_t name = g_names.get(a, m_name);
        if constexpr (K == EventKind::Nccl) {
            // A communicator the call created: the first one (ncclCommInitAll creates several).
            if (m_commOut && m_status == 0 && m_comm == 0) m_comm = bits(*m_commOut);
            NcclCall e;  // its columns as the model defines them (EventColumns.h)
            e.comm = static_cast<uint64_t>(m_comm);
            e.stream = static_cast<uint64_t>(m_stream);
            e.status = static_cast<int32_t>(m_status);
            e.count = m_count;
            e.bytes = m_count >= 0 ? m_count * ncclTypeSize(m_datatype) : 0;
            e.dataType = static_cast<int16_t>(m_datatype);
            e.redOp = static_cast<int16_t>(m_redop);
            e.peer = static_cast<int32_t>(m_peer);
            e.rank = static_cast<int32_t>(m_rank);
            e.ranks = static_cast<int32_t>(m_ranks);
            emitColumns(a, name, columnsOf(e));
        } else {
            CudaLibCallOf<K> e;
            e.handle = static_cast<uint64_t>(m_handle);
            e.stream = static_cast<uint64_t>(m_stream);
            e.status = static_cast<int32_t>(m_status);
            emitColumns(a, name, columnsOf(e));
        }
    }

    template <size_t N>
    void emitColumns(const capture::ModuleEventApi* a, uint32_t name,
                     const std::array<int64_t, N>& cols) {
        a->emitThreadEvent(static_cast<uint8_t>(K), m_start, m_end, name, cols.data(),
                           static_cast<int>(N));
    }

    const char* m_name;
    bool m_on = false;
    int64_t m_start = 0, m_end = 0;
    int64_t m_handle = 0, m_stream = 0, m_status = 0;
    int64_t m_comm = 0, m_count = -1, m_datatype = -1, m_redop = -1;
    int32_t m_peer = -1, m_rank = -1, m_ranks = -1;
    void* const* m_commOut = nullptr;
};

}  // namespace sl::cudalibs
