// NVTX3 injection: InitializeInjectionNvtx2 fills the NVTX callback tables (CORE, CORE2, CUDA,
// CUDART) with our handlers. Push/pop, start/end and marks write compact records (RawFormat.h)
// into the thread's buffer; the merge pairs them. A thread-local bit stack per domain remembers
// which pushes were stored, so the pop of a stored push is always stored (critical reserve) and
// the pop of a dropped push is skipped: every range is either whole in the report or counted.
// With --capture-range=nvtx the same bit stack keeps nesting right across the capture switch:
// pushes made while it is off are not stored, and neither are their pops.
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <string>

#include <signal.h>

#include "capture/common/SessionEnv.h"
#include "capture/inject/InjectCommon.h"
#include "capture/inject/PythonBacktrace.h"
#include "capture/inject/NvtxApi.h"
#include "capture/inject/NvtxMessage.h"
#include "capture/inject/NvtxPushStack.h"

namespace sl::inject {
namespace {

using capture::DropKind;
using capture::kNvtxInline;
using capture::kNvtxRegistered;
using capture::MetaKind;
using capture::NvtxEndRecord;
using capture::NvtxRecord;
using capture::RecordType;

// Our nvtxDomainHandle_t names one of these in g_domainHandles (HandleTable.h).
// Their stream-local ids are re-defined when the fork generation changes (a child traced
// before exec).
struct Domain {
    uint32_t id;
    std::atomic<uint32_t> definedGen{0};
    std::string name;
};

HandleTable<Domain> g_domainHandles;
std::atomic<uint32_t> g_nextDomain{1};
std::atomic<uint64_t> g_nextRangeId{1};
constexpr uint64_t kDroppedRange = 1ull << 63;

void defineDomain(Domain* d) {
    uint32_t gen = ProcessWriter::generation();
    if (d->definedGen.load(std::memory_order_relaxed) == gen) return;
    int64_t ints[2] = {d->id, capture::nowNs()};
    std::string_view s[1] = {d->name};
    if (ProcessWriter::emitMeta(MetaKind::DomainCreate, ints, 2, s, 1)) d->definedGen.store(gen);
}

// A handle we never gave (made up) is taken as the default domain's.
inline uint32_t domainId(nvtxDomainHandle_t h) {
    Domain* d = g_domainHandles.find(reinterpret_cast<uintptr_t>(h));
    if (!d) return 0;
    if (__builtin_expect(
            d->definedGen.load(std::memory_order_relaxed) != ProcessWriter::generation(), 0))
        defineDomain(d);
    return d->id;
}

// A thread's push stacks: 4 domains tracked per thread; more share the last slot.
struct NvtxThread {
    PushStack stacks[4];
    uint32_t gen;
};
thread_local NvtxThread t_nvtx SL_CAPTURE_TLS;

inline PushStack& stackFor(uint32_t domain) {
    NvtxThread& t = t_nvtx;
    if (__builtin_expect(t.gen != ProcessWriter::generation(), 0)) {
        std::memset(&t, 0, sizeof t);
        t.gen = ProcessWriter::generation();
    }
    if (__builtin_expect(t.stacks[0].domain == domain || (domain == 0), 1)) return t.stacks[0];
    for (int i = 1; i < 4; ++i)
        if (t.stacks[i].domain == domain) return t.stacks[i];
    for (int i = 1; i < 4; ++i)
        if (t.stacks[i].depth == 0) {
            t.stacks[i].domain = domain;
            return t.stacks[i];
        }
    return t.stacks[3];
}



// Category names, kept so that a forked child (a new stream) names them again before its first
// NVTX record: a name given before fork is used after it (Pool workers, DataLoader workers).
// Append-only and lock-free: a child forked while a parent thread named one cannot deadlock.
struct NamedCategory {
    uint32_t domain, category;
    std::string name;
};
constexpr uint32_t kMaxNamedCategories = 4096;
std::atomic<NamedCategory*> g_namedCategories[kMaxNamedCategories];  // .bss (PythonFrames.cpp says why)
std::atomic<uint32_t> g_namedCount{0};
std::atomic<uint32_t> g_namedGen{0};  // the stream generation that has every name

void emitCategory(uint32_t domain, uint32_t category, std::string_view name) {
    int64_t ints[2] = {domain, category};
    ProcessWriter::emitMeta(MetaKind::Category, ints, 2, &name, 1);
}

// Brings a stream that has not named the categories yet (a forked child's) up to date; called
// before each begin record, one relaxed load when there is nothing to do.
inline void nameCategoriesAgain() {
    const uint32_t gen = ProcessWriter::generation();
    uint32_t seen = g_namedGen.load(std::memory_order_relaxed);
    if (__builtin_expect(seen == gen, 1)) return;
    if (!g_namedGen.compare_exchange_strong(seen, gen)) return;  // another thread does it
    const uint32_t n = std::min(g_namedCount.load(std::memory_order_acquire), kMaxNamedCategories);
    for (uint32_t i = 0; i < n; ++i)
        if (const NamedCategory* c = g_namedCategories[i].load(std::memory_order_acquire))
            emitCategory(c->domain, c->category, c->name);
}

void nameCategory(uint32_t domain, uint32_t category, std::string_view name) {
    nameCategoriesAgain();  // the names given before a fork first
    const uint32_t i = g_namedCount.fetch_add(1, std::memory_order_acq_rel);
    if (i < kMaxNamedCategories)
        g_namedCategories[i].store(new NamedCategory{domain, category, std::string(name)},
                                   std::memory_order_release);
    emitCategory(domain, category, name);
}

// Copies a message's n bytes: inline up to 32, as two overlapping copies of the widest size
// that fits (no byte read outside the text), libc's memcpy above. Most names are that short,
// and the call into libc was 2-3 ns of a 40 ns push.
inline void copyText(uint8_t* d, const char* s, uint32_t n) {
    if (n >= 16) {
        if (n > 32) {
            std::memcpy(d, s, n);
            return;
        }
        __builtin_memcpy(d, s, 16);
        __builtin_memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        __builtin_memcpy(d, s, 8);
        __builtin_memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        __builtin_memcpy(d, s, 4);
        __builtin_memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = static_cast<uint8_t>(s[0]);
        d[n / 2] = static_cast<uint8_t>(s[n / 2]);
        d[n - 1] = static_cast<uint8_t>(s[n - 1]);
    }
}

// Writes a push, start or mark record. Returns false when it was dropped (and counted).
inline bool writeBegin(RecordType type, uint32_t domain, int64_t time, const Attrs& a,
                       const Message& m, uint64_t rangeId) {
    nameCategoriesAgain();
    if (__builtin_expect(g_config.pythonBacktraceNvtx, 0)) pybt::recordFor(time, type == RecordType::NvtxMark ? EventKind::NvtxMark : EventKind::NvtxRange);
    const bool compact = (a.category | a.color | a.payloadType) == 0;
    const uint32_t head = compact ? sizeof(capture::NvtxCompactRecord) : sizeof(NvtxRecord);
    uint32_t extra = type == RecordType::NvtxStart ? 8u : 0u;
    uint32_t length = m.length;
    bool cut = m.cut;
    uint32_t textBytes = m.registered ? 0u : capture::paddedTo8(length);
    if (__builtin_expect(textBytes > 4096, 0)) {
        // A long message is cut to what one record of the thread's buffer takes, not dropped
        // (SIGHTLINE_BUFFER_KB may make that less than kMaxMessageBytes).
        const uint32_t room = ProcessWriter::maxRecordBytes() - head - extra - 8;
        if (textBytes > room) {
            length = static_cast<uint32_t>(capture::cutAtCharacter({m.text, length}, room).size());
            cut = true;
            textBytes = capture::paddedTo8(length);
        }
    }
    uint32_t bytes = head + extra + textBytes;
    uint8_t* p = ProcessWriter::reserve(bytes);
    if (__builtin_expect(p == nullptr, 0)) {
        ProcessWriter::countDrop(type == RecordType::NvtxMark ? DropKind::NvtxMark
                                                              : DropKind::NvtxRange);
        return false;
    }
    auto* h = reinterpret_cast<capture::RecordHeader*>(p);
    h->type = type;
    h->flags = static_cast<uint8_t>(a.payloadType | (m.registered ? kNvtxRegistered : kNvtxInline) |
                                    (compact ? capture::kNvtxCompact : 0));
    h->size8 = static_cast<uint16_t>(bytes / 8);
    h->aux = domain;
    if (compact) {
        auto* r = reinterpret_cast<capture::NvtxCompactRecord*>(p);
        r->time = time;
        r->message = m.registered ? m.registered : length;
        r->reserved = 0;
    } else {
        auto* r = reinterpret_cast<NvtxRecord*>(p);
        r->time = time;
        r->category = a.category;
        r->color = a.color;
        r->payload = a.payload;
        r->message = m.registered ? m.registered : length;
        r->reserved = 0;
    }
    uint8_t* q = p + head;
    if (extra) {
        std::memcpy(q, &rangeId, 8);
        q += 8;
    }
    if (textBytes) {
        // Zero the last word first so the padding is deterministic, then copy the text.
        std::memset(q + textBytes - 8, 0, 8);
        copyText(q, m.text, length);
    }
    ProcessWriter::commit(bytes);
    if (__builtin_expect(cut, 0)) ProcessWriter::countDrop(DropKind::TextCut);
    return true;
}

// --capture-range=nvtx: the range named SIGHTLINE_CAPTURE_RANGE (in SIGHTLINE_CAPTURE_DOMAIN;
// empty: the default domain, "*": any) switches the session-wide capture on when it begins while
// the switch is off (CaptureGate), and off again when that same range ends. While the switch is
// off nothing is recorded: a push only moves the thread's stack level (its bit says "not
// stored", so its pop is skipped too), a start returns an id marked as not stored, a mark
// returns. No clock is read. What began in a window is kept whole: its pop or end is stored even
// after the window closed (docs/capture.md, "Capture ranges").
struct RangeWatch {
    std::string name, domain;
    pid_t launcher = 0;
    std::atomic<uint64_t> startId{0};      // the start/end range that opened the open window
    std::atomic<uint32_t> startWindow{0};  // and that window's number
};
// Never destroyed: threads may still call NVTX while static destructors run at exit.
RangeWatch& g_watch = *new RangeWatch();
bool g_watchOn = false;  // a capture range was given and the gate is mapped
constexpr int kMaxDomains = 1024;
std::atomic<Domain*> g_domains[kMaxDomains];
// The push/pop range of this thread that opened the open window (window 0: none).
struct WatchedPush {
    uint32_t domain;
    int level;  // the stack depth while the watched push is open
    uint32_t window;
};
thread_local WatchedPush t_watched SL_CAPTURE_TLS = {0, 0, 0};

bool watchMatches(uint32_t domain, const Message& m) {
    std::string_view text = m.registeredText ? std::string_view(*m.registeredText)
                                             : std::string_view(m.text ? m.text : "", m.length);
    if (text != g_watch.name) return false;
    if (g_watch.domain == "*") return true;
    if (g_watch.domain.empty()) return domain == 0;
    Domain* d = domain < kMaxDomains ? g_domains[domain].load() : nullptr;
    return d && d->name == g_watch.domain;
}

// Opens the window when `m` is the capture range; 0 when it is not or no window may open.
inline uint32_t openWindow(uint32_t domain, const Message& m, int64_t* time) {
    if (!g_watchOn || !watchMatches(domain, m)) return 0;
    return capture::CaptureGate::tryOpen(ProcessWriter::pid(), time);
}

// Called after the range's end is stored: with stop-shutdown the program may end right away.
void closeWindow(uint32_t window, int64_t time) {
    if (!capture::CaptureGate::close(window, time) || !capture::CaptureGate::shutdownAtEnd() ||
        g_watch.launcher <= 0)
        return;
    ProcessWriter::ToolScope scope;
    kill(g_watch.launcher, SIGUSR1);
}

inline int push(uint32_t domain, const Attrs& a, const Message& m, int64_t time) {
    // A vfork child runs on its parent's thread state (stacks, writer): as if no tool were here.
    if (__builtin_expect(ProcessWriter::inVforkChild(), 0)) return NVTX_NO_PUSH_POP_TRACKING;
    PushStack& s = stackFor(domain);
    int level = s.depth;
    setBit(s, writeBegin(RecordType::NvtxPush, domain, time, a, m, 0));
    return level;
}

// A push while the switch is off: not stored, unless it is the capture range opening a window.
int pushOff(uint32_t domain, const Attrs& a, const Message& m) {
    if (ProcessWriter::inVforkChild()) return NVTX_NO_PUSH_POP_TRACKING;
    PushStack& s = stackFor(domain);
    int level = s.depth;
    int64_t time = 0;
    uint32_t window = t_watched.window == 0 ? openWindow(domain, m, &time) : 0;
    if (window == 0) {
        setBit(s, false);
        return level;
    }
    t_watched = {domain, level + 1, window};
    setBit(s, writeBegin(RecordType::NvtxPush, domain, time, a, m, 0));
    return level;
}

inline void writePop(uint32_t domain, int64_t time) {
    uint8_t* p = ProcessWriter::reserveCritical(16);
    if (!p) {
        ProcessWriter::countDrop(DropKind::NvtxRangeEnd);
        return;
    }
    auto* r = reinterpret_cast<NvtxEndRecord*>(p);
    r->h = {RecordType::NvtxPop, 0, 2, domain};
    r->time = time;
    ProcessWriter::commit(16);
}

inline int pop(uint32_t domain) {
    if (__builtin_expect(ProcessWriter::inVforkChild(), 0)) return NVTX_NO_PUSH_POP_TRACKING;
    PushStack& s = stackFor(domain);
    const bool owner = __builtin_expect(t_watched.window != 0, 0) &&
                       t_watched.domain == domain && t_watched.level == s.depth;
    // Stored when its push was: not when the push was dropped (counted) or made while the
    // switch was off. A pop without a push is stored (the merge counts it) only in a window.
    // NVTX: the level of the range ended, negative for an error (a pop without a push).
    const int level = s.depth > 0 ? static_cast<int>(s.depth) - 1 : -1;
    const bool stored = s.depth > 0 ? popBit(s) : capture::CaptureGate::isOn();
    if (!stored && !owner) return level;
    int64_t time = capture::nowNs();
    if (stored) writePop(domain, time);
    if (__builtin_expect(owner, 0)) {
        uint32_t window = t_watched.window;
        t_watched = {0, 0, 0};
        closeWindow(window, time);
    }
    return level;
}

inline nvtxRangeId_t start(uint32_t domain, const Attrs& a, const Message& m, int64_t time) {
    if (__builtin_expect(ProcessWriter::inVforkChild(), 0)) return 0;
    uint64_t id = g_nextRangeId.fetch_add(1, std::memory_order_relaxed);
    if (!writeBegin(RecordType::NvtxStart, domain, time, a, m, id)) return id | kDroppedRange;
    return id;
}

// A start while the switch is off: not stored (its end is skipped), unless it opens a window.
nvtxRangeId_t startOff(uint32_t domain, const Attrs& a, const Message& m) {
    if (ProcessWriter::inVforkChild()) return 0;
    uint64_t id = g_nextRangeId.fetch_add(1, std::memory_order_relaxed);
    int64_t time = 0;
    uint32_t window = openWindow(domain, m, &time);
    if (window == 0) return id | kDroppedRange;
    g_watch.startWindow.store(window);
    g_watch.startId.store(id);
    if (!writeBegin(RecordType::NvtxStart, domain, time, a, m, id)) return id | kDroppedRange;
    return id;
}

inline void writeEnd(nvtxRangeId_t id, int64_t time) {
    uint8_t* p = ProcessWriter::reserveCritical(24);
    if (!p) {
        ProcessWriter::countDrop(DropKind::NvtxRangeEnd);
        return;
    }
    auto* r = reinterpret_cast<NvtxEndRecord*>(p);
    r->h = {RecordType::NvtxEnd, 0, 3, 0};
    r->time = time;
    r->rangeId = id;
    ProcessWriter::commit(24);
}

inline void end(nvtxRangeId_t id) {
    if (__builtin_expect(ProcessWriter::inVforkChild(), 0)) return;
    const bool stored = !(id & kDroppedRange);
    uint64_t plain = id & ~kDroppedRange;
    const bool owner = __builtin_expect(g_watchOn, 0) && g_watch.startId.load() == plain;
    if (!stored && !owner) return;
    int64_t time = capture::nowNs();
    if (stored) writeEnd(id, time);
    if (__builtin_expect(owner, 0)) {
        uint32_t window = g_watch.startWindow.load();
        if (g_watch.startId.compare_exchange_strong(plain, 0)) closeWindow(window, time);
    }
}

inline void mark(uint32_t domain, const Attrs& a, const Message& m, int64_t time) {
    writeBegin(RecordType::NvtxMark, domain, time, a, m, 0);
}

void nameThread(uint32_t tid, std::string_view name) {
    int64_t ints[3] = {ProcessWriter::launcherTidOf(tid), capture::nowNs(), 1};
    ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 3, &name, 1);
}

void nameResource(capture::ResourceKind kind, uint64_t handle, std::string_view name) {
    int64_t ints[3] = {static_cast<int64_t>(kind), static_cast<int64_t>(handle), capture::nowNs()};
    ProcessWriter::emitMeta(MetaKind::ResourceName, ints, 3, &name, 1);
}

std::string wideToString(const wchar_t* w) {
    return wideToUtf8(w);
}

// ---- CORE callbacks ----
// Each tests the capture switch first (always on without --capture-range): on, the clock is
// read at entry as before; off, the call costs the test, the message decoding and, for a push
// or start, the comparison with the capture range's name.
using capture::CaptureGate;

void NVTX_API markEx(const nvtxEventAttributes_t* a) {
    if (!CaptureGate::isOn()) return;
    int64_t t = capture::nowNs();
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    mark(0, at, m, t);
}
void NVTX_API markA(const char* s) {
    if (!CaptureGate::isOn()) return;
    int64_t t = capture::nowNs();
    Message m;
    fromAscii(m, s);
    mark(0, Attrs{}, m, t);
}
void NVTX_API markW(const wchar_t* s) {
    if (!CaptureGate::isOn()) return;
    int64_t t = capture::nowNs();
    Message m;
    fromWide(m, s);
    mark(0, Attrs{}, m, t);
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    return on ? start(0, at, m, t) : startOff(0, at, m);
}
nvtxRangeId_t NVTX_API rangeStartA(const char* s) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Message m;
    fromAscii(m, s);
    return on ? start(0, Attrs{}, m, t) : startOff(0, Attrs{}, m);
}
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* s) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Message m;
    fromWide(m, s);
    return on ? start(0, Attrs{}, m, t) : startOff(0, Attrs{}, m);
}
void NVTX_API rangeEnd(nvtxRangeId_t id) {
    end(id);
}
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    return on ? push(0, at, m, t) : pushOff(0, at, m);
}
int NVTX_API rangePushA(const char* s) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Message m;
    fromAscii(m, s);
    return on ? push(0, Attrs{}, m, t) : pushOff(0, Attrs{}, m);
}
int NVTX_API rangePushW(const wchar_t* s) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Message m;
    fromWide(m, s);
    return on ? push(0, Attrs{}, m, t) : pushOff(0, Attrs{}, m);
}
int NVTX_API rangePop() {
    return pop(0);
}
void NVTX_API nameCategoryA(uint32_t c, const char* n) {
    nameCategory(0, c, n ? n : "");
}
void NVTX_API nameCategoryW(uint32_t c, const wchar_t* n) {
    nameCategory(0, c, wideToString(n));
}
void NVTX_API nameOsThreadA(uint32_t tid, const char* n) {
    nameThread(tid, n ? n : "");
}
void NVTX_API nameOsThreadW(uint32_t tid, const wchar_t* n) {
    nameThread(tid, wideToString(n));
}

// ---- CORE2 (domains) ----
void NVTX_API domainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    if (!CaptureGate::isOn()) return;
    int64_t t = capture::nowNs();
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    mark(domainId(d), at, m, t);
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    return on ? start(domainId(d), at, m, t) : startOff(domainId(d), at, m);
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) {
    end(id);
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    const bool on = CaptureGate::isOn();
    int64_t t = on ? capture::nowNs() : 0;
    Attrs at;
    Message m;
    decodeAttrs(a, at, m);
    return on ? push(domainId(d), at, m, t) : pushOff(domainId(d), at, m);
}
int NVTX_API domainRangePop(nvtxDomainHandle_t d) {
    return pop(domainId(d));
}
nvtxResourceHandle_t NVTX_API domainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
    static int dummy;
    return reinterpret_cast<nvtxResourceHandle_t>(&dummy);  // generic resources are not traced
}
void NVTX_API domainResourceDestroy(nvtxResourceHandle_t) {}
void NVTX_API domainNameCategoryA(nvtxDomainHandle_t d, uint32_t c, const char* n) {
    nameCategory(domainId(d), c, n ? n : "");
}
void NVTX_API domainNameCategoryW(nvtxDomainHandle_t d, uint32_t c, const wchar_t* n) {
    nameCategory(domainId(d), c, wideToString(n));
}
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t, const char* s) {
    auto* r = new RegisteredString();
    r->text = s ? s : "";
    r->id.get(r->text);
    const uint64_t handle = g_registeredStrings.add(r);
    if (handle == 0) delete r;  // 4 M strings registered: further ones are ignored, as untraced
    return reinterpret_cast<nvtxStringHandle_t>(static_cast<uintptr_t>(handle));
}
nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t d, const wchar_t* s) {
    return domainRegisterStringA(d, wideToString(s).c_str());
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) {
    auto* d = new Domain();
    d->id = g_nextDomain.fetch_add(1);
    d->name = name ? name : "";
    if (d->id < kMaxDomains) g_domains[d->id].store(d);
    defineDomain(d);
    const uint64_t handle = g_domainHandles.add(d);  // 0 when full: the default domain's
    return reinterpret_cast<nvtxDomainHandle_t>(static_cast<uintptr_t>(handle));
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name) {
    return domainCreateA(wideToString(name).c_str());
}
void NVTX_API domainDestroy(nvtxDomainHandle_t h) {
    if (!g_domainHandles.find(reinterpret_cast<uintptr_t>(h))) return;
    // The Domain object stays alive: ranges may still refer to it in flight.
    int64_t ints[2] = {domainId(h), capture::nowNs()};
    ProcessWriter::emitMeta(MetaKind::DomainDestroy, ints, 2);
}
void NVTX_API initialize(const void*) {}

// ---- CUDA / CUDART resource naming ----
void NVTX_API nameCuDeviceA(nvtx_CUdevice dev, const char* n) {
    nameResource(capture::ResourceKind::CuDevice, static_cast<uint64_t>(dev), n ? n : "");
}
void NVTX_API nameCuDeviceW(nvtx_CUdevice dev, const wchar_t* n) {
    nameResource(capture::ResourceKind::CuDevice, static_cast<uint64_t>(dev), wideToString(n));
}
void NVTX_API nameCuContextA(nvtx_CUcontext c, const char* n) {
    nameResource(capture::ResourceKind::CuContext, reinterpret_cast<uint64_t>(c), n ? n : "");
}
void NVTX_API nameCuContextW(nvtx_CUcontext c, const wchar_t* n) {
    nameResource(capture::ResourceKind::CuContext, reinterpret_cast<uint64_t>(c), wideToString(n));
}
void NVTX_API nameCuStreamA(nvtx_CUstream s, const char* n) {
    nameResource(capture::ResourceKind::CuStream, reinterpret_cast<uint64_t>(s), n ? n : "");
}
void NVTX_API nameCuStreamW(nvtx_CUstream s, const wchar_t* n) {
    nameResource(capture::ResourceKind::CuStream, reinterpret_cast<uint64_t>(s), wideToString(n));
}
void NVTX_API nameCuEventA(nvtx_CUevent e, const char* n) {
    nameResource(capture::ResourceKind::CuEvent, reinterpret_cast<uint64_t>(e), n ? n : "");
}
void NVTX_API nameCuEventW(nvtx_CUevent e, const wchar_t* n) {
    nameResource(capture::ResourceKind::CuEvent, reinterpret_cast<uint64_t>(e), wideToString(n));
}
void NVTX_API nameCudaDeviceA(int dev, const char* n) {
    nameResource(capture::ResourceKind::CudaDevice, static_cast<uint64_t>(dev), n ? n : "");
}
void NVTX_API nameCudaDeviceW(int dev, const wchar_t* n) {
    nameResource(capture::ResourceKind::CudaDevice, static_cast<uint64_t>(dev), wideToString(n));
}
void NVTX_API nameCudaStreamA(nvtx_cudaStream_t s, const char* n) {
    nameResource(capture::ResourceKind::CudaStream, reinterpret_cast<uint64_t>(s), n ? n : "");
}
void NVTX_API nameCudaStreamW(nvtx_cudaStream_t s, const wchar_t* n) {
    nameResource(capture::ResourceKind::CudaStream, reinterpret_cast<uint64_t>(s), wideToString(n));
}
void NVTX_API nameCudaEventA(nvtx_cudaEvent_t e, const char* n) {
    nameResource(capture::ResourceKind::CudaEvent, reinterpret_cast<uint64_t>(e), n ? n : "");
}
void NVTX_API nameCudaEventW(nvtx_cudaEvent_t e, const wchar_t* n) {
    nameResource(capture::ResourceKind::CudaEvent, reinterpret_cast<uint64_t>(e), wideToString(n));
}

template <class F>
void install(NvtxFunctionTable table, unsigned int size, unsigned int cbid, F fn) {
    if (cbid < size && table[cbid]) *table[cbid] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool installModule(const NvtxExportTableCallbacks* cb, NvtxCallbackModule module) {
    NvtxFunctionTable t = nullptr;
    unsigned int n = 0;
    if (!cb->GetModuleFunctionTable(module, &t, &n) || !t) return false;
    switch (module) {
        case NVTX_CB_MODULE_CORE:
            install(t, n, NVTX_CBID_CORE_MarkEx, markEx);
            install(t, n, NVTX_CBID_CORE_MarkA, markA);
            install(t, n, NVTX_CBID_CORE_MarkW, markW);
            install(t, n, NVTX_CBID_CORE_RangeStartEx, rangeStartEx);
            install(t, n, NVTX_CBID_CORE_RangeStartA, rangeStartA);
            install(t, n, NVTX_CBID_CORE_RangeStartW, rangeStartW);
            install(t, n, NVTX_CBID_CORE_RangeEnd, rangeEnd);
            install(t, n, NVTX_CBID_CORE_RangePushEx, rangePushEx);
            install(t, n, NVTX_CBID_CORE_RangePushA, rangePushA);
            install(t, n, NVTX_CBID_CORE_RangePushW, rangePushW);
            install(t, n, NVTX_CBID_CORE_RangePop, rangePop);
            install(t, n, NVTX_CBID_CORE_NameCategoryA, nameCategoryA);
            install(t, n, NVTX_CBID_CORE_NameCategoryW, nameCategoryW);
            install(t, n, NVTX_CBID_CORE_NameOsThreadA, nameOsThreadA);
            install(t, n, NVTX_CBID_CORE_NameOsThreadW, nameOsThreadW);
            break;
        case NVTX_CB_MODULE_CORE2:
            install(t, n, NVTX_CBID_CORE2_DomainMarkEx, domainMarkEx);
            install(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, domainRangeStartEx);
            install(t, n, NVTX_CBID_CORE2_DomainRangeEnd, domainRangeEnd);
            install(t, n, NVTX_CBID_CORE2_DomainRangePushEx, domainRangePushEx);
            install(t, n, NVTX_CBID_CORE2_DomainRangePop, domainRangePop);
            install(t, n, NVTX_CBID_CORE2_DomainResourceCreate, domainResourceCreate);
            install(t, n, NVTX_CBID_CORE2_DomainResourceDestroy, domainResourceDestroy);
            install(t, n, NVTX_CBID_CORE2_DomainNameCategoryA, domainNameCategoryA);
            install(t, n, NVTX_CBID_CORE2_DomainNameCategoryW, domainNameCategoryW);
            install(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, domainRegisterStringA);
            install(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, domainRegisterStringW);
            install(t, n, NVTX_CBID_CORE2_DomainCreateA, domainCreateA);
            install(t, n, NVTX_CBID_CORE2_DomainCreateW, domainCreateW);
            install(t, n, NVTX_CBID_CORE2_DomainDestroy, domainDestroy);
            install(t, n, NVTX_CBID_CORE2_Initialize, initialize);
            break;
        case NVTX_CB_MODULE_CUDA:
            install(t, n, NVTX_CBID_CUDA_NameCuDeviceA, nameCuDeviceA);
            install(t, n, NVTX_CBID_CUDA_NameCuDeviceW, nameCuDeviceW);
            install(t, n, NVTX_CBID_CUDA_NameCuContextA, nameCuContextA);
            install(t, n, NVTX_CBID_CUDA_NameCuContextW, nameCuContextW);
            install(t, n, NVTX_CBID_CUDA_NameCuStreamA, nameCuStreamA);
            install(t, n, NVTX_CBID_CUDA_NameCuStreamW, nameCuStreamW);
            install(t, n, NVTX_CBID_CUDA_NameCuEventA, nameCuEventA);
            install(t, n, NVTX_CBID_CUDA_NameCuEventW, nameCuEventW);
            break;
        case NVTX_CB_MODULE_CUDART:
            install(t, n, NVTX_CBID_CUDART_NameCudaDeviceA, nameCudaDeviceA);
            install(t, n, NVTX_CBID_CUDART_NameCudaDeviceW, nameCudaDeviceW);
            install(t, n, NVTX_CBID_CUDART_NameCudaStreamA, nameCudaStreamA);
            install(t, n, NVTX_CBID_CUDART_NameCudaStreamW, nameCudaStreamW);
            install(t, n, NVTX_CBID_CUDART_NameCudaEventA, nameCudaEventA);
            install(t, n, NVTX_CBID_CUDART_NameCudaEventW, nameCudaEventW);
            break;
        default:
            break;
    }
    return true;
}

}  // namespace

namespace nvtx {
nvtxDomainHandle_t domainCreate(const char* name) {
    return domainCreateA(name);
}
nvtxStringHandle_t registerString(nvtxDomainHandle_t d, const char* text) {
    return domainRegisterStringA(d, text);
}
void nameCategory(nvtxDomainHandle_t d, uint32_t category, const char* name) {
    domainNameCategoryA(d, category, name);
}
int pushRange(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    return domainRangePushEx(d, a);
}
int popRange(nvtxDomainHandle_t d) {
    return domainRangePop(d);
}
}  // namespace nvtx

void nvtxForgetWindowOwner() {
    t_watched = {0, 0, 0};
    g_watch.startId.store(0);
}

}  // namespace sl::inject

// The NVTX3 entry point (nvtxInitDecls: "InitializeInjectionNvtx2"). Returns 0 (NVTX stays a
// no-op) when not in a capture session or when NVTX tracing is off.
SL_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
    using namespace sl::inject;
    if (!getExportTable || !g_config.nvtx || !ProcessWriter::active()) return 0;
    auto* cb = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!cb || cb->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
    if (const char* range = std::getenv(sl::capture::env::kCaptureRange); range && *range) {
        const char* domain = std::getenv(sl::capture::env::kCaptureDomain);
        const char* launcher = std::getenv(sl::capture::env::kLauncherPid);
        g_watch.name = range;
        g_watch.domain = domain ? domain : "";
        g_watch.launcher = launcher ? static_cast<pid_t>(std::atoi(launcher)) : 0;
        g_watchOn = sl::capture::CaptureGate::present();
    }
    installModule(cb, NVTX_CB_MODULE_CORE);
    installModule(cb, NVTX_CB_MODULE_CORE2);
    installModule(cb, NVTX_CB_MODULE_CUDA);
    installModule(cb, NVTX_CB_MODULE_CUDART);
    if (auto* vi =
            static_cast<const NvtxExportTableVersionInfo*>(getExportTable(NVTX_ETID_VERSIONINFO)))
        if (vi->struct_size >= sizeof(NvtxExportTableVersionInfo) && vi->SetInjectionNvtxVersion)
            vi->SetInjectionNvtxVersion(NVTX_VERSION);
    return 1;
}

