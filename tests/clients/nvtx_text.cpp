// Test client: NVTX text as programs write it. Category names given with nvtxNameCategoryA/W and
// nvtxDomainNameCategoryA/W, and wide-string (UTF-32) messages with non-ASCII characters of 2, 3
// and 4 bytes in UTF-8:
//   default domain: categories 1 "compute", 2 "catégorie_wide"; push "wide_é_push" (W) holding
//                   mark "mark_✓" (W); start/end "start_日本" (W); push "cat2_🚀" (unicode attrs,
//                   category 2); push "cat1_ascii" (category 1).
//   domain "domaine_ü" (W): categories 3 "io", 4 "réseau" (W); push "net_range" (category 4).
//   and a push of 1000 'é' (W): 2000 bytes of UTF-8, within the 4096 a wide message may have.
// `nvtx_text long`: messages at and past what the capture keeps, one push each:
//   20,000 'a' (kept whole), 100,000 'b' (cut to 65,536 bytes), 30,000 '✓' in UTF-8 (90,000
//   bytes, cut to 21,845 characters), 5,000 'é' wide (cut to 4,096 bytes: 2,048 characters), and
//   a registered string of 70,000 'r' (cut to 65,536), and a wide domain name of 20,000 rockets
//   (80,000 bytes, cut to 65,536): five cut.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {
nvtxEventAttributes_t attrs(uint32_t category) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = category;
    return a;
}
}  // namespace

int longMessages() {
    for (const std::string& m : {std::string(20000, 'a'), std::string(100000, 'b')}) {
        nvtxRangePushA(m.c_str());
        nvtxRangePop();
    }
    std::string checks;
    for (int i = 0; i < 30000; ++i) checks += "\u2713";
    nvtxRangePushA(checks.c_str());
    nvtxRangePop();
    std::wstring wide(5000, L'é');
    nvtxRangePushW(wide.c_str());
    nvtxRangePop();
    std::wstring emoji(20000, L'\U0001F680');  // a wide domain name of 80,000 bytes: cut too
    nvtxDomainCreateW(emoji.c_str());
    nvtxDomainHandle_t d = nvtxDomainCreateA("long");
    const std::string r(70000, 'r');
    nvtxEventAttributes_t a = attrs(0);
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(d, r.c_str());
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    std::printf("nvtx_text long done\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "long") == 0) return longMessages();
    nvtxDomainHandle_t d = nvtxDomainCreateW(L"domaine_ü");
    nvtxNameCategoryA(1, "compute");
    nvtxNameCategoryW(2, L"catégorie_wide");
    nvtxDomainNameCategoryA(d, 3, "io");
    nvtxDomainNameCategoryW(d, 4, L"réseau");

    nvtxRangePushW(L"wide_é_push");
    nvtxMarkW(L"mark_✓");
    nvtxRangePop();
    nvtxRangeId_t id = nvtxRangeStartW(L"start_日本");
    nvtxRangeEnd(id);

    nvtxEventAttributes_t a = attrs(2);
    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = L"cat2_🚀";
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = attrs(1);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "cat1_ascii";
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = attrs(4);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "net_range";
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    std::wstring longText(1000, L'é');
    nvtxRangePushW(longText.c_str());
    nvtxRangePop();
    std::printf("nvtx_text done\n");
    return 0;
}
