#include "model/analysis/rules/KernelCategory.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <string>

namespace sl::analysis {
namespace {

bool hasAny(const std::string& lower, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words)
        if (lower.find(w) != std::string::npos) return true;
    return false;
}

}  // namespace

KernelCategory kernelCategory(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // Demangled names start with the return type ("void "); the kernel's own name follows.
    std::string_view own = lower;
    if (own.starts_with("void ")) own.remove_prefix(5);
    if (own.starts_with("nccl") || hasAny(lower, {"ncclkernel", "nccldevkernel"}))
        return KernelCategory::Communication;
    if (hasAny(lower, {"memcpy", "memset", "catarraybatchedcopy", "copy_kernel"}) || own.starts_with("dma"))
        return KernelCategory::Memory;
    if (hasAny(lower, {"flash", "fmha", "attention", "attn", "_mha", "mha_", "sdpa"}))
        return KernelCategory::Attention;
    if (hasAny(lower, {"batch_norm", "batchnorm", "layer_norm", "layernorm", "group_norm", "groupnorm",
                       "instance_norm", "instancenorm", "rms_norm", "rmsnorm", "bn_fw", "bn_bw"}))
        return KernelCategory::Normalization;
    if (hasAny(lower, {"convolve", "conv1d", "conv2d", "conv3d", "convolution", "winograd", "dgrad", "wgrad",
                       "fprop", "im2col", "scudnn", "cask_cudnn"}) ||
        (lower.find("cudnn") != std::string::npos && hasAny(lower, {"nchwtonhwc", "nhwctonchw"})))
        return KernelCategory::Convolution;
    if (hasAny(lower, {"gemm", "cutlass", "cublas", "matmul", "xmma", "wgmma", "splitkreduce"}))
        return KernelCategory::Gemm;
    if (hasAny(lower, {"reduce", "reduction", "softmax", "argmax", "argmin", "pool", "criterion", "cub::"}))
        return KernelCategory::Reduction;
    if (hasAny(lower, {"elementwise", "pointwise", "elemwise", "triton_poi"})) return KernelCategory::Elementwise;
    return KernelCategory::Other;
}

std::string_view kernelCategoryName(KernelCategory c) {
    static constexpr std::array<std::string_view, kKernelCategoryCount> kNames = {
        "communication", "memory", "attention", "normalization", "convolution", "GEMM",
        "reduction",     "elementwise", "other"};
    return kNames[static_cast<size_t>(c)];
}

}  // namespace sl::analysis
