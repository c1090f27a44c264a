#include <gtest/gtest.h>

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "capture/cupti/CuptiApiNames.h"

namespace sl::cuda {
namespace {

TEST(CuptiApiNames, TablesCoverEveryCbidOfTheHeaders) {
    // Every id between INVALID and SIZE is named (the headers have no gaps).
    EXPECT_EQ(apiNameCount(ApiKind::Runtime), size_t(CUPTI_RUNTIME_TRACE_CBID_SIZE) - 1);
    EXPECT_EQ(apiNameCount(ApiKind::Driver), size_t(CUPTI_DRIVER_TRACE_CBID_SIZE) - 1);
    for (uint32_t id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++id)
        EXPECT_FALSE(apiName(ApiKind::Runtime, id).empty()) << id;
    for (uint32_t id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; ++id)
        EXPECT_FALSE(apiName(ApiKind::Driver, id).empty()) << id;
}

TEST(CuptiApiNames, RuntimeNamesLoseTheirVersionDriverNamesKeepTheirs) {
    EXPECT_EQ(apiName(ApiKind::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
              "cudaLaunchKernel");
    EXPECT_EQ(apiName(ApiKind::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020), "cudaMalloc");
    EXPECT_EQ(apiName(ApiKind::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000),
              "cudaMemcpy_ptds");
    EXPECT_EQ(apiName(ApiKind::Driver, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cuLaunchKernel");
    EXPECT_EQ(apiName(ApiKind::Driver, CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v2), "cuCtxCreate_v2");
    EXPECT_EQ(apiName(ApiKind::Runtime, 0), "");
    EXPECT_EQ(apiName(ApiKind::Driver, 1000000), "");
}

TEST(CuptiApiNames, EventRecordCalls) {
    EXPECT_TRUE(isEventRecordApi(ApiKind::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020));
    EXPECT_TRUE(isEventRecordApi(ApiKind::Runtime,
                                 CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010));
    EXPECT_TRUE(isEventRecordApi(ApiKind::Driver, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz));
    EXPECT_FALSE(
        isEventRecordApi(ApiKind::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020));
    EXPECT_FALSE(isEventRecordApi(ApiKind::Driver, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
}

}  // namespace
}  // namespace sl::cuda
