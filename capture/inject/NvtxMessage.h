#pragma once
// NVTX messages and event attributes as our callbacks decode them (NvtxInjection.cpp): ASCII,
// wide (converted to UTF-8 in a per-thread buffer) or registered strings, category, color,
// payload.
// No allocation; any thread.
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "capture/common/ProcessWriter.h"
#include "capture/inject/HandleTable.h"

namespace sl::inject {

struct RegisteredString {
    capture::CachedString id;
    std::string text;
};

// Our nvtxStringHandle_t: a handle of this table (HandleTable.h).
inline HandleTable<RegisteredString> g_registeredStrings;

// A message as NVTX gives it: ASCII, wide, or a registered handle.
struct Message {
    const char* text = nullptr;
    uint32_t length = 0;
    uint32_t registered = 0;
    const std::string* registeredText = nullptr;
    bool cut = false;  // longer than we keep: the record counts it (DropKind::TextCut)
};

// ASCII (in practice UTF-8) messages are kept up to the longest string a record keeps (and the
// thread buffer's record limit, NvtxInjection.cpp's writeBegin).
constexpr size_t kMaxMessageBytes = capture::kMetaStringMax;
// Where a wide message is converted: one per thread (a call decodes one message, used before
// the call returns), not on the caller's stack. Smaller than an ASCII message may be: it is in
// the TLS block of every thread that touches the module's TLS. The default TLS model on
// purpose: 4 KiB of initial-exec TLS could make a later dlopen of this module
// (NVTX_INJECTION64_PATH without LD_PRELOAD) fail for want of static TLS.
constexpr size_t kMaxWideMessageBytes = 4096;
inline thread_local char t_wideBuf[kMaxWideMessageBytes + 4];

// wchar_t is UTF-32 on Linux: encoded as UTF-8 here, not through wcrtomb, whose result depends
// on the program's locale (the C locale turned every non-ASCII character into '?'). A value that
// is no Unicode scalar (a surrogate, above U+10FFFF) becomes U+FFFD. Writes 1-4 bytes at `o`.
inline size_t encodeUtf8(uint32_t c, char* o) {
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
    if (c < 0x80) {
        o[0] = static_cast<char>(c);
        return 1;
    }
    if (c < 0x800) {
        o[0] = static_cast<char>(0xC0 | (c >> 6));
        o[1] = static_cast<char>(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = static_cast<char>(0xE0 | (c >> 12));
        o[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        o[2] = static_cast<char>(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = static_cast<char>(0xF0 | (c >> 18));
    o[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    o[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    o[3] = static_cast<char>(0x80 | (c & 0x3F));
    return 4;
}

// A wide message into the thread's buffer: whole characters up to kMaxWideMessageBytes.
inline void fromWide(Message& m, const wchar_t* w) {
    size_t n = 0;
    char* const buf = t_wideBuf;  // kMaxWideMessageBytes + 4: room for one more character
    for (; w && *w; ++w) {
        const size_t len = encodeUtf8(static_cast<uint32_t>(*w), buf + n);
        if (n + len > kMaxWideMessageBytes) break;  // written past the end, not counted
        n += len;
    }
    m.text = buf;
    m.length = static_cast<uint32_t>(n);
    m.cut = w && *w;
}

// A wide name or registered string (not on the per-call path): the whole text as UTF-8, up to a
// little past what a record keeps, so that the writer cuts it at a character and counts it.
inline std::string wideToUtf8(const wchar_t* w) {
    std::string out;
    char b[4];
    for (; w && *w && out.size() <= capture::kMetaStringMax; ++w)
        out.append(b, encodeUtf8(static_cast<uint32_t>(*w), b));
    return out;
}

inline void fromAscii(Message& m, const char* s) {
    m.text = s ? s : "";
    const size_t n = strnlen(m.text, kMaxMessageBytes + 1);
    m.cut = n > kMaxMessageBytes;
    m.length = static_cast<uint32_t>(
        m.cut ? capture::cutAtCharacter({m.text, n}, kMaxMessageBytes).size() : n);
}

struct Attrs {
    uint32_t category = 0, color = 0;
    uint8_t payloadType = 0;
    uint64_t payload = 0;
};

inline void decodeAttrs(const nvtxEventAttributes_t* a, Attrs& out, Message& m) {
    if (!a) {
        fromAscii(m, "");
        return;
    }
    out.category = a->category;
    out.color = a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
    if (a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 &&
        a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT) {
        out.payloadType = static_cast<uint8_t>(a->payloadType);
        switch (a->payloadType) {
            case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
                out.payload = a->payload.ullValue;
                break;
            case NVTX_PAYLOAD_TYPE_INT64:
                out.payload = static_cast<uint64_t>(a->payload.llValue);
                break;
            case NVTX_PAYLOAD_TYPE_DOUBLE:
                std::memcpy(&out.payload, &a->payload.dValue, 8);
                break;
            case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
                out.payload = a->payload.uiValue;
                break;
            case NVTX_PAYLOAD_TYPE_INT32:
                out.payload = static_cast<uint64_t>(static_cast<int64_t>(a->payload.iValue));
                break;
            case NVTX_PAYLOAD_TYPE_FLOAT: {
                uint32_t bits;
                std::memcpy(&bits, &a->payload.fValue, 4);
                out.payload = bits;
                break;
            }
            default:
                break;
        }
    }
    switch (a->messageType) {
        case NVTX_MESSAGE_TYPE_ASCII:
            fromAscii(m, a->message.ascii);
            break;
        case NVTX_MESSAGE_TYPE_UNICODE:
            fromWide(m, a->message.unicode);
            break;
        case NVTX_MESSAGE_TYPE_REGISTERED:
            if (RegisteredString* rs = g_registeredStrings.find(
                    reinterpret_cast<uintptr_t>(a->message.registered))) {
                m.registered = rs->id.get(rs->text);
                m.registeredText = &rs->text;
            } else {
                fromAscii(m, "");
            }
            break;
        default:
            fromAscii(m, "");
            break;
    }
}

}  // namespace sl::inject
