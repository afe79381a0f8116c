// Device properties and cluster limits that glossary claims rest on, printed as one JSON object.
// Run on the H200 for the evidence in tests/data/claims/h200_props.json; rerun by
// tests/test_claims_toolchain.py::test_h200_device_properties (marked gpu).
#include <cstdio>
#include <cuda_runtime.h>
__global__ void e(){}
int cl(int np){cudaFuncSetAttribute(e,cudaFuncAttributeNonPortableClusterSizeAllowed,np);cudaLaunchConfig_t c={};c.gridDim=dim3(2112);c.blockDim=dim3(128);int s=-1;cudaError_t r=cudaOccupancyMaxPotentialClusterSize(&s,e,&c);return r?-int(r):s;}
int main(){cudaDeviceProp p;cudaGetDeviceProperties(&p,0);printf("{\"name\":\"%s\",\"cc\":%d%d,\"sms\":%d,\"warp\":%d,\"smemSM\":%zu,\"smemBlock\":%zu,\"smemOptin\":%zu,\"smemReserved\":%zu,\"regsSM\":%d,\"regsBlock\":%d,\"const\":%zu,\"l2\":%d,\"l2persist\":%d,\"thrBlock\":%d,\"thrSM\":%d,\"clusterPortable\":%d,\"clusterNonPortable\":%d}\n",p.name,p.major,p.minor,p.multiProcessorCount,p.warpSize,p.sharedMemPerMultiprocessor,p.sharedMemPerBlock,p.sharedMemPerBlockOptin,p.reservedSharedMemPerBlock,p.regsPerMultiprocessor,p.regsPerBlock,p.totalConstMem,p.l2CacheSize,p.persistingL2CacheMaxSize,p.maxThreadsPerBlock,p.maxThreadsPerMultiProcessor,cl(0),cl(1));}
