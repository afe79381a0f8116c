// Declarations-only stand-in for hipBLASLt's public header, for syntax checks in
// benchmarks/bench_project.py: the ROCm 6.4 header set used there has no hipBLASLt.
// Names and signatures follow hipBLASLt's documented C API; only what a compile check
// of the corpus reaches is declared. Nothing here links or runs.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>
#include <hipblas-common/hipblas-common.h>

typedef struct hipblasLtHandleOpaque* hipblasLtHandle_t;
typedef struct hipblasLtMatmulDescOpaque* hipblasLtMatmulDesc_t;
typedef struct hipblasLtMatrixLayoutOpaque* hipblasLtMatrixLayout_t;
typedef struct hipblasLtMatmulPreferenceOpaque* hipblasLtMatmulPreference_t;

typedef struct {
    uint8_t data[16];
    size_t max_workspace_bytes;
} hipblasLtMatmulAlgo_t;

typedef struct {
    hipblasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    hipblasStatus_t state;
    float wavesCount;
    int reserved[4];
} hipblasLtMatmulHeuristicResult_t;

typedef enum {
    HIPBLASLT_MATMUL_DESC_TRANSA = 0,
    HIPBLASLT_MATMUL_DESC_TRANSB = 1,
    HIPBLASLT_MATMUL_DESC_EPILOGUE = 2,
    HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3,
    HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 4,
    HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER = 5,
    HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER = 6,
    HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER = 7,
    HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER = 8,
    HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 10,
    HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 11,
    HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 12,
    HIPBLASLT_MATMUL_DESC_POINTER_MODE = 13,
} hipblasLtMatmulDescAttributes_t;

typedef enum {
    HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 0,
    HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 1,
    HIPBLASLT_MATRIX_LAYOUT_TYPE = 2,
    HIPBLASLT_MATRIX_LAYOUT_ORDER = 3,
    HIPBLASLT_MATRIX_LAYOUT_ROWS = 4,
    HIPBLASLT_MATRIX_LAYOUT_COLS = 5,
    HIPBLASLT_MATRIX_LAYOUT_LD = 6,
} hipblasLtMatrixLayoutAttribute_t;

typedef enum {
    HIPBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
    HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
} hipblasLtMatmulPreferenceAttributes_t;

typedef enum {
    HIPBLASLT_EPILOGUE_DEFAULT = 1,
    HIPBLASLT_EPILOGUE_RELU = 2,
    HIPBLASLT_EPILOGUE_BIAS = 4,
    HIPBLASLT_EPILOGUE_RELU_BIAS = 6,
    HIPBLASLT_EPILOGUE_GELU = 32,
    HIPBLASLT_EPILOGUE_GELU_BIAS = 36,
    HIPBLASLT_EPILOGUE_GELU_AUX = 160,
    HIPBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    HIPBLASLT_EPILOGUE_DGELU = 192,
    HIPBLASLT_EPILOGUE_DGELU_BGRAD = 208,
    HIPBLASLT_EPILOGUE_BGRADA = 256,
    HIPBLASLT_EPILOGUE_BGRADB = 512,
} hipblasLtEpilogue_t;

#ifdef __cplusplus
extern "C" {
#endif
hipblasStatus_t hipblasLtCreate(hipblasLtHandle_t* handle);
hipblasStatus_t hipblasLtDestroy(const hipblasLtHandle_t handle);
hipblasStatus_t hipblasLtMatmulDescCreate(hipblasLtMatmulDesc_t* matmulDesc, hipblasComputeType_t computeType, hipDataType scaleType);
hipblasStatus_t hipblasLtMatmulDescDestroy(const hipblasLtMatmulDesc_t matmulDesc);
hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipblasLtMatmulDesc_t matmulDesc, hipblasLtMatmulDescAttributes_t attr,
                                                const void* buf, size_t sizeInBytes);
hipblasStatus_t hipblasLtMatrixLayoutCreate(hipblasLtMatrixLayout_t* matLayout, hipDataType type, uint64_t rows, uint64_t cols, int64_t ld);
hipblasStatus_t hipblasLtMatrixLayoutDestroy(const hipblasLtMatrixLayout_t matLayout);
hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(hipblasLtMatrixLayout_t matLayout, hipblasLtMatrixLayoutAttribute_t attr,
                                                  const void* buf, size_t sizeInBytes);
hipblasStatus_t hipblasLtMatmulPreferenceCreate(hipblasLtMatmulPreference_t* pref);
hipblasStatus_t hipblasLtMatmulPreferenceDestroy(const hipblasLtMatmulPreference_t pref);
hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(hipblasLtMatmulPreference_t pref, hipblasLtMatmulPreferenceAttributes_t attr,
                                                      const void* buf, size_t sizeInBytes);
hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(hipblasLtHandle_t handle, hipblasLtMatmulDesc_t matmulDesc,
                                                hipblasLtMatrixLayout_t Adesc, hipblasLtMatrixLayout_t Bdesc,
                                                hipblasLtMatrixLayout_t Cdesc, hipblasLtMatrixLayout_t Ddesc,
                                                hipblasLtMatmulPreference_t pref, int requestedAlgoCount,
                                                hipblasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount);
hipblasStatus_t hipblasLtMatmul(hipblasLtHandle_t handle, hipblasLtMatmulDesc_t matmulDesc, const void* alpha,
                                const void* A, hipblasLtMatrixLayout_t matA, const void* B, hipblasLtMatrixLayout_t matB,
                                const void* beta, const void* C, hipblasLtMatrixLayout_t matC, void* D,
                                hipblasLtMatrixLayout_t matD, const hipblasLtMatmulAlgo_t* algo, void* workspace,
                                size_t workspaceSizeInBytes, hipStream_t stream);
#ifdef __cplusplus
}
#endif
