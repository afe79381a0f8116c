// Blackwell's fifth-generation tensor core instructions (tcgen05), which no GPU reachable from
// this project runs: this file is compiled for sm_100a only, to show that the toolchain accepts
// it there and rejects it for Hopper. One CTA allocates 128 columns of tensor memory, issues one
// tcgen05.mma (bf16 inputs from shared-memory descriptors, float32 accumulator in tensor
// memory), commits it to an mbarrier, waits, and frees the tensor memory. It is never run.
#include <cstdint>

__global__ void tcgen05_probe(uint64_t desc_a, uint64_t desc_b, uint32_t idesc) {
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&done);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  if (threadIdx.x < 32)  // one warp allocates tensor memory and writes its address to shared memory
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"
                 ::"r"((uint32_t)__cvta_generic_to_shared(&tmem_base)));
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
        " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
        ::"r"(tmem), "l"(desc_a), "l"(desc_b), "r"(idesc));
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar));
  }
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(bar));
  __syncthreads();
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
}
