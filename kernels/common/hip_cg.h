// HIP cooperative groups for the examples. The HIP 5.x headers spell the launch dimensions with
// the legacy hipBlockDim_x / hipGridDim_x macros, which the clang-19 HIP wrapper does not define;
// define them from blockDim / gridDim before the header needs them. Newer ROCm headers don't use them.
#pragma once
#include <hip/hip_runtime.h>
#ifndef hipBlockDim_x
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#endif
#include <hip/hip_cooperative_groups.h>
