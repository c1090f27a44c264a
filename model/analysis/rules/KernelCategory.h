#pragma once
// What a kernel does, from its name: the categories of the user guides' checklist. Name rules
// (case-insensitive, the first that matches wins; docs/analysis.md lists them with the real
// names of the fixtures they were checked on):
//   communication  nccl... (HTA: ^nccl.*Kernel)
//   memory         memcpy/memset in the name, copy kernels (CatArrayBatchedCopy, copy_kernel)
//   attention      flash, fmha, attention, attn, mha, sdpa
//   normalization  batch/layer/group/instance/RMS norm, cuDNN's bn_fw/bn_bw
//   convolution    convolve, conv1d/2d/3d, convolution, winograd, dgrad, wgrad, fprop, im2col,
//                  cuDNN's scudnn/cask_cudnn kernels and cudnn layout transforms
//   GEMM           gemm, cutlass, cublas, matmul, xmma, wgmma, splitKreduce
//   reduction      reduce, reduction, softmax, argmax/argmin, pooling, loss criteria, cub::
//   elementwise    elementwise, pointwise, elemwise, Triton pointwise (triton_poi)
//   other          the rest
#include <cstdint>
#include <string_view>

namespace sl::analysis {

enum class KernelCategory : uint8_t {
    Communication, Memory, Attention, Normalization, Convolution, Gemm, Reduction, Elementwise, Other
};
constexpr int kKernelCategoryCount = 9;

KernelCategory kernelCategory(std::string_view kernelName);
std::string_view kernelCategoryName(KernelCategory c);  // "GEMM", "attention", ...

}  // namespace sl::analysis
