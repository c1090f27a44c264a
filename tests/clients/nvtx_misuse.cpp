// Test client: NVTX used wrongly, as programs do; a profiler must answer as NVTX documents and
// never crash the program. Exits 0 when every answer was right, else the number of the first
// wrong one (printed).
//   1: a pop without a push returns a negative value (NVTX: "< 0 if an error occurs");
//   2: matched pushes and pops return the levels 0, 1 / 1, 0;
//   3: a registered-string handle NVTX never gave (made up) is not dereferenced, nor a made-up
//      domain handle.
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>

int main() {
    if (int r = nvtxRangePop(); r >= 0) {
        std::printf("1: unmatched pop returned %d\n", r);
        return 1;
    }
    const int p0 = nvtxRangePushA("outer"), p1 = nvtxRangePushA("inner");
    const int q1 = nvtxRangePop(), q0 = nvtxRangePop();
    // Without a tool NVTX tracks no levels (every call answers NVTX_NO_PUSH_POP_TRACKING).
    const bool tracked = p0 != NVTX_NO_PUSH_POP_TRACKING;
    if (tracked && (p0 != 0 || p1 != 1 || q1 != 1 || q0 != 0)) {
        std::printf("2: levels %d %d / %d %d\n", p0, p1, q1, q0);
        return 2;
    }
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reinterpret_cast<nvtxStringHandle_t>(uintptr_t{0xdeadbeef});
    nvtxRangePushEx(&a);
    nvtxRangePop();
    nvtxMarkEx(&a);
    const auto madeUp = reinterpret_cast<nvtxDomainHandle_t>(uintptr_t{0x1234});
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "in-made-up-domain";
    nvtxDomainMarkEx(madeUp, &a);
    nvtxDomainRangePushEx(madeUp, &a);
    nvtxDomainRangePop(madeUp);
    nvtxDomainDestroy(madeUp);
    std::printf("survived\n");
    return 0;
}
