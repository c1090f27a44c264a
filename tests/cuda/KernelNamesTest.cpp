#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture/cupti/KernelNames.h"

namespace sl::cuda {
namespace {

TEST(KernelNames, DemanglesCxxNamesAndLeavesOthersAlone) {
    EXPECT_EQ(demangle("_Z6kernelPfi"), "kernel(float*, int)");
    EXPECT_EQ(demangle("_Z3addIfEvPT_S1_i"), "void add<float>(float*, float*, int)");
    EXPECT_EQ(demangle("my_c_kernel"), "my_c_kernel");
    EXPECT_EQ(demangle("_Znotvalid!"), "_Znotvalid!");
    EXPECT_EQ(demangle(""), "");
    EXPECT_EQ(demangle(nullptr), "");
}

TEST(KernelNames, ShortNameDropsReturnTypeNamespacesTemplatesAndParameters) {
    EXPECT_EQ(shortKernelName("kernel(float*, int)"), "kernel");
    EXPECT_EQ(shortKernelName("void add<float>(float*, float*, int)"), "add");
    EXPECT_EQ(
        shortKernelName(
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1>)"),
        "vectorized_elementwise_kernel");
    EXPECT_EQ(
        shortKernelName(
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(Params)"),
        "Kernel");
    EXPECT_EQ(shortKernelName("my_c_kernel"), "my_c_kernel");
    EXPECT_EQ(shortKernelName(""), "(unnamed)");
}

TEST(KernelNames, CachesByPointerButNeverReturnsAStaleName) {
    KernelNames names;
    std::vector<std::string> interned;
    auto intern = [&](std::string_view s) {
        interned.emplace_back(s);
        return static_cast<uint32_t>(interned.size());
    };
    char buf[32] = "_Z1av";
    auto a = names.lookup(buf, intern);
    EXPECT_EQ(interned[a.demangled - 1], "a()");
    size_t calls = interned.size();
    names.lookup(buf, intern);
    EXPECT_EQ(interned.size(), calls);        // cached: no new interning
    std::snprintf(buf, sizeof buf, "_Z1bv");  // same address, new text (a module was reloaded)
    auto b = names.lookup(buf, intern);
    EXPECT_EQ(interned[b.demangled - 1], "b()");
    EXPECT_EQ(interned[b.shortName - 1], "b");
    EXPECT_EQ(interned[b.mangled - 1], "_Z1bv");
}

}  // namespace
}  // namespace sl::cuda
