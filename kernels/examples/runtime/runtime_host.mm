// The host runtime of runtime.cu with Metal's own host API, in Objective-C++ (ARC). Same pipeline,
// same file protocol with the runner (`runtime_host DIR ITERS N CHUNKS`: DIR/in_x.bin in,
// DIR/out_y.bin out, one JSON line with the median time), and the library source runtime.metal,
// which the runner copies into DIR and this program compiles at run time.
//
// WRITTEN AGAINST APPLE'S DOCUMENTATION, NOT COMPILED: NO APPLE SDK HERE. The spellings come from
// Apple's pages under developer.apple.com/documentation/metal, looked up for this file: MTLHeap
// makeBuffer(length:options:offset:), MTLHeapType.placement, heapBufferSizeAndAlign(length:options:),
// MTLIndirectComputeCommand (setComputePipelineState:, setKernelBuffer:offset:atIndex:, setBarrier,
// setThreadgroupMemoryLength:atIndex: in multiples of 16 bytes, concurrentDispatchThreadgroups:
// threadsPerThreadgroup:), MTLIndirectCommandType.concurrentDispatch, executeCommandsInBuffer:withRange:,
// MTLComputePipelineDescriptor.supportIndirectCommandBuffers, MTLLogState, MTLLogStateDescriptor,
// newLogStateWithDescriptor:error:, addLogHandler:, MTLCommandQueueDescriptor.logState,
// newCommandQueueWithDescriptor:, MTLCompileOptions.enableLogging (all four macOS 15) and
// newRemoteBufferViewForDevice: (deprecated); hazardTrackingMode and peerGroupID were matched against
// published selector lists (metal-cpp, objc2-metal). The rest (MTLCopyAllDevices, supportsFamily:,
// newBufferWithBytesNoCopy:..., newSharedEvent, encodeSignalEvent:value:, encodeWaitForEvent:value:,
// addCompletedHandler:, copyFromBuffer:..., fillBuffer:range:value:, threadExecutionWidth,
// maxTotalThreadsPerThreadgroup, MTLCommandBufferStatusError) are the Metal terms of the glossary's
// concepts, which cite Apple's pages. Needs macOS 15 (shader logging, Metal 3.2).
//
// How the pieces map: a command queue is a stream; an MTLSharedEvent signalled by one queue and
// waited on by the other is cudaEventRecord + cudaStreamWaitEvent; a completed handler is a host
// callback; waitUntilCompleted is a stream synchronize; an indirect command buffer, encoded once
// and executed per replay, is the graph; blit copies and fills are memcpy and memset; a no-copy
// buffer over page-aligned host memory is pinned memory; shared storage is unified memory; an
// automatic heap is a sub-allocator (the stream-ordered pool's role); a placement heap, in which
// the program chooses each buffer's offset, is the nearest counterpart of mapping physical memory
// into a reserved range.
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr NSUInteger kThreads = 256;
constexpr NSUInteger kChunkStride = 256;  // bytes between the per-chunk argument records

struct Chunk {
  uint32_t lo, hi, n;
};

[[noreturn]] void fail(const char* what, NSError* error) {
  std::fprintf(stderr, "%s: %s\n", what, error ? error.localizedDescription.UTF8String : "returned nil");
  std::exit(2);
}

void check(id<MTLCommandBuffer> cb) {
  if (cb.status == MTLCommandBufferStatusError) fail("command buffer failed", cb.error);
}

NSUInteger round_up(NSUInteger v, NSUInteger to) { return (v + to - 1) / to * to; }

}  // namespace

int main(int argc, char** argv) {
  @autoreleasepool {
    if (argc != 5) {
      std::fprintf(stderr, "usage: %s DIR ITERS N CHUNKS\n", argv[0]);
      return 64;
    }
    const std::string dir = argv[1];
    const int iters = std::max(1, std::atoi(argv[2]));
    const uint32_t n = (uint32_t)std::atol(argv[3]);
    const uint32_t chunks = std::min<uint32_t>((uint32_t)std::atol(argv[4]), n);
    const NSUInteger bytes = (NSUInteger)n * sizeof(float);

    // --- device: every GPU, pick one, its properties, peers ------------------------------------
    NSArray<id<MTLDevice>>* all = MTLCopyAllDevices();
    id<MTLDevice> device = nil;
    for (id<MTLDevice> d in all)  // the largest working set; on Apple silicon there is one GPU
      if (!device || d.recommendedMaxWorkingSetSize > device.recommendedMaxWorkingSetSize) device = d;
    if (!device) device = MTLCreateSystemDefaultDevice();
    if (!device) fail("no Metal device", nil);
    const bool apple7 = [device supportsFamily:MTLGPUFamilyApple7];
    const MTLSize max_group = device.maxThreadsPerThreadgroup;

    // --- memory of every kind ------------------------------------------------------------------
    const NSUInteger page = (NSUInteger)getpagesize();
    const NSUInteger host_bytes = round_up(bytes, page);  // no-copy buffers cover whole pages
    void* host_x = nullptr;
    if (posix_memalign(&host_x, page, host_bytes) != 0) fail("posix_memalign", nil);
    FILE* in = std::fopen((dir + "/in_x.bin").c_str(), "rb");
    if (!in || std::fread(host_x, sizeof(float), n, in) != n) fail("cannot read in_x.bin", nil);
    std::fclose(in);
    id<MTLBuffer> hx = [device newBufferWithBytesNoCopy:host_x length:host_bytes
                                                options:MTLResourceStorageModeShared deallocator:nil];
    id<MTLBuffer> hy = [device newBufferWithLength:bytes options:MTLResourceStorageModeShared];
    const float coef[4] = {1.5f, -0.5f, 0.25f, 1.0f};
    id<MTLBuffer> c = [device newBufferWithBytes:coef length:sizeof coef options:MTLResourceStorageModeShared];
    id<MTLBuffer> args = [device newBufferWithLength:chunks * kChunkStride options:MTLResourceStorageModeShared];
    if (!hx || !hy || !c || !args) fail("buffer allocation", nil);

    // Scratch t from an automatic heap: sub-allocated from memory the heap holds (tracked, so that
    // Metal orders the commands that use it as it does for plain buffers).
    const MTLResourceOptions gpu_only = MTLResourceStorageModePrivate;
    MTLSizeAndAlign t_size = [device heapBufferSizeAndAlignWithLength:bytes options:gpu_only];
    MTLHeapDescriptor* pool_desc = [MTLHeapDescriptor new];
    pool_desc.type = MTLHeapTypeAutomatic;
    pool_desc.storageMode = MTLStorageModePrivate;
    pool_desc.hazardTrackingMode = MTLHazardTrackingModeTracked;
    pool_desc.size = round_up(t_size.size, t_size.align);
    id<MTLHeap> pool = [device newHeapWithDescriptor:pool_desc];
    id<MTLBuffer> t = [pool newBufferWithLength:bytes options:gpu_only];

    // d_x and y placed by hand in one placement heap: one reservation, offsets the program picks.
    MTLSizeAndAlign place = [device heapBufferSizeAndAlignWithLength:bytes options:gpu_only];
    const NSUInteger slot = round_up(place.size, place.align);
    MTLHeapDescriptor* placed_desc = [MTLHeapDescriptor new];
    placed_desc.type = MTLHeapTypePlacement;
    placed_desc.storageMode = MTLStorageModePrivate;
    placed_desc.hazardTrackingMode = MTLHazardTrackingModeTracked;
    placed_desc.size = 2 * slot;
    id<MTLHeap> placed = [device newHeapWithDescriptor:placed_desc];
    id<MTLBuffer> dx = [placed newBufferWithLength:bytes options:gpu_only offset:0];
    id<MTLBuffer> y = [placed newBufferWithLength:bytes options:gpu_only offset:slot];
    if (!pool || !t || !placed || !dx || !y) fail("heap allocation", nil);

    // Peer access: GPUs of one peer group (multi-GPU Mac Pro) can view each other's private
    // buffers as blit sources; every other pair has none.
    int peer_pairs = 0;
    for (id<MTLDevice> a in all)
      for (id<MTLDevice> b in all)
        if (a != b && a.peerGroupID != 0 && a.peerGroupID == b.peerGroupID) ++peer_pairs;
    for (id<MTLDevice> other in all)
      if (other != device && other.peerGroupID != 0 && other.peerGroupID == device.peerGroupID) {
        id<MTLBuffer> remote = [y newRemoteBufferViewForDevice:other];
        if (!remote) fail("newRemoteBufferViewForDevice:", nil);
        break;
      }

    // --- the library, compiled at run time, its functions found by name -----------------------
    NSError* error = nil;
    NSString* path = [NSString stringWithUTF8String:(dir + "/runtime.metal").c_str()];
    NSString* source = [NSString stringWithContentsOfFile:path encoding:NSUTF8StringEncoding error:&error];
    if (!source) fail("cannot read runtime.metal", error);
    MTLCompileOptions* options = [MTLCompileOptions new];
    options.languageVersion = MTLLanguageVersion3_2;
    options.enableLogging = YES;  // os_log in the shaders is compiled out without it
    id<MTLLibrary> library = [device newLibraryWithSource:source options:options error:&error];
    if (!library) fail("newLibraryWithSource", error);
    if ([library newFunctionWithName:@"no_such_kernel"] != nil) fail("a missing function was found", nil);

    id<MTLComputePipelineState> pipelines[2];
    NSString* names[2] = {@"stencil", @"finish"};
    for (int k = 0; k < 2; ++k) {
      id<MTLFunction> fn = [library newFunctionWithName:names[k]];
      if (!fn) fail("newFunctionWithName", nil);
      MTLComputePipelineDescriptor* desc = [MTLComputePipelineDescriptor new];
      desc.computeFunction = fn;
      desc.supportIndirectCommandBuffers = YES;  // both run from the indirect command buffer too
      desc.maxTotalThreadsPerThreadgroup = kThreads;  // agrees with the kernels' attribute
      pipelines[k] = [device newComputePipelineStateWithDescriptor:desc options:MTLPipelineOptionNone
                                                        reflection:nil error:&error];
      if (!pipelines[k]) fail("newComputePipelineStateWithDescriptor", error);
    }
    // the slice plus its halo, rounded up: Metal takes threadgroup memory lengths in multiples of 16 bytes
    const NSUInteger tile_bytes = round_up((kThreads + 1) * sizeof(float), 16);
    // Occupancy as Metal reports it: the pipeline's threadgroup ceiling after register allocation,
    // its SIMD width, and how many tiles fit the threadgroup memory of one core.
    const NSUInteger stencil_max = pipelines[0].maxTotalThreadsPerThreadgroup;
    const NSUInteger simd_width = pipelines[0].threadExecutionWidth;
    const NSUInteger tiles_per_core =
        device.maxThreadgroupMemoryLength / (tile_bytes + pipelines[0].staticThreadgroupMemoryLength);

    // --- logging, queues, event -----------------------------------------------------------------
    MTLLogStateDescriptor* log_desc = [MTLLogStateDescriptor new];
    log_desc.level = MTLLogLevelInfo;
    log_desc.bufferSize = 64 * 1024;
    id<MTLLogState> log_state = [device newLogStateWithDescriptor:log_desc error:&error];
    if (!log_state) fail("newLogStateWithDescriptor", error);
    // Blocks copy what they capture, and an atomic cannot be copied: they capture pointers to these.
    std::atomic<int> logged{0}, callbacks{0};
    std::atomic<int>* logged_at = &logged;
    std::atomic<int>* callbacks_at = &callbacks;
    [log_state addLogHandler:^(NSString* subsystem, NSString* category, MTLLogLevel level, NSString* message) {
      logged_at->fetch_add(1);
    }];
    MTLCommandQueueDescriptor* queue_desc = [MTLCommandQueueDescriptor new];
    queue_desc.logState = log_state;
    id<MTLCommandQueue> q1 = [device newCommandQueueWithDescriptor:queue_desc];
    id<MTLCommandQueue> q2 = [device newCommandQueue];
    id<MTLSharedEvent> staged = [device newSharedEvent];
    uint64_t signal = 0;

    const uint32_t per = (n + chunks - 1) / chunks;
    uint32_t issued = 0;
    for (uint32_t k = 0; k < chunks; ++k) {
      Chunk* rec = reinterpret_cast<Chunk*>(static_cast<char*>(args.contents) + k * kChunkStride);
      rec->lo = k * per;
      rec->hi = std::min(n, rec->lo + per);
      rec->n = n;
      if (rec->lo < rec->hi) issued = k + 1;
    }
    auto chunk = [&](uint32_t k) {
      return *reinterpret_cast<const Chunk*>(static_cast<const char*>(args.contents) + k * kChunkStride);
    };

    // The direct form: per chunk, q1 uploads, poisons t and runs stage 1, then signals; q2 waits,
    // runs stage 2, downloads and calls back. Nothing runs until a command buffer is committed.
    auto issue = [&]() -> id<MTLCommandBuffer> {
      id<MTLCommandBuffer> last = nil;
      for (uint32_t k = 0; k < issued; ++k) {
        const Chunk ch = chunk(k);
        const NSUInteger lo = ch.lo * sizeof(float), len = (ch.hi - ch.lo) * sizeof(float);
        const NSUInteger upload = (std::min(n, ch.hi + 1) - ch.lo) * sizeof(float);
        const MTLSize groups = MTLSizeMake((ch.hi - ch.lo + kThreads - 1) / kThreads, 1, 1);
        id<MTLCommandBuffer> cb1 = [q1 commandBuffer];
        id<MTLBlitCommandEncoder> blit = [cb1 blitCommandEncoder];
        [blit copyFromBuffer:hx sourceOffset:lo toBuffer:dx destinationOffset:lo size:upload];
        [blit fillBuffer:t range:NSMakeRange(lo, len) value:0xFF];  // NaN unless stage 1 writes it
        [blit endEncoding];
        id<MTLComputeCommandEncoder> enc = [cb1 computeCommandEncoder];
        [enc setComputePipelineState:pipelines[0]];
        [enc setBuffer:dx offset:0 atIndex:0];
        [enc setBuffer:t offset:0 atIndex:1];
        [enc setBuffer:c offset:0 atIndex:2];
        [enc setBuffer:args offset:k * kChunkStride atIndex:3];
        [enc setThreadgroupMemoryLength:tile_bytes atIndex:0];
        [enc dispatchThreadgroups:groups threadsPerThreadgroup:MTLSizeMake(kThreads, 1, 1)];
        [enc endEncoding];
        [cb1 encodeSignalEvent:staged value:++signal];
        [cb1 commit];

        id<MTLCommandBuffer> cb2 = [q2 commandBuffer];
        [cb2 encodeWaitForEvent:staged value:signal];
        enc = [cb2 computeCommandEncoder];
        [enc setComputePipelineState:pipelines[1]];
        [enc setBuffer:t offset:0 atIndex:0];
        [enc setBuffer:y offset:0 atIndex:1];
        [enc setBuffer:c offset:0 atIndex:2];
        [enc setBuffer:args offset:k * kChunkStride atIndex:3];
        [enc dispatchThreadgroups:groups threadsPerThreadgroup:MTLSizeMake(kThreads, 1, 1)];
        [enc endEncoding];
        blit = [cb2 blitCommandEncoder];
        [blit copyFromBuffer:y sourceOffset:lo toBuffer:hy destinationOffset:lo size:len];
        [blit endEncoding];
        [cb2 addCompletedHandler:^(id<MTLCommandBuffer> finished) { callbacks_at->fetch_add(1); }];
        [cb2 commit];
        last = cb2;
      }
      return last;
    };

    // The replayed form: both stages of every chunk encoded once into an indirect command buffer;
    // commands in one execution may overlap, so every command carries a barrier: each stage runs
    // after the command before it, whichever side of the barrier Metal waits on.
    MTLIndirectCommandBufferDescriptor* icb_desc = [MTLIndirectCommandBufferDescriptor new];
    icb_desc.commandTypes = MTLIndirectCommandTypeConcurrentDispatch;
    icb_desc.inheritPipelineState = NO;
    icb_desc.inheritBuffers = NO;
    icb_desc.maxKernelBufferBindCount = 4;
    id<MTLIndirectCommandBuffer> icb = [device newIndirectCommandBufferWithDescriptor:icb_desc
                                                                       maxCommandCount:2 * issued
                                                                               options:0];
    if (!icb) fail("newIndirectCommandBufferWithDescriptor", nil);
    for (uint32_t k = 0; k < issued; ++k) {
      const Chunk ch = chunk(k);
      const MTLSize groups = MTLSizeMake((ch.hi - ch.lo + kThreads - 1) / kThreads, 1, 1);
      id<MTLIndirectComputeCommand> s1 = [icb indirectComputeCommandAtIndex:2 * k];
      [s1 setBarrier];
      [s1 setComputePipelineState:pipelines[0]];
      [s1 setKernelBuffer:dx offset:0 atIndex:0];
      [s1 setKernelBuffer:t offset:0 atIndex:1];
      [s1 setKernelBuffer:c offset:0 atIndex:2];
      [s1 setKernelBuffer:args offset:k * kChunkStride atIndex:3];
      [s1 setThreadgroupMemoryLength:tile_bytes atIndex:0];
      [s1 concurrentDispatchThreadgroups:groups threadsPerThreadgroup:MTLSizeMake(kThreads, 1, 1)];
      id<MTLIndirectComputeCommand> s2 = [icb indirectComputeCommandAtIndex:2 * k + 1];
      [s2 setBarrier];
      [s2 setComputePipelineState:pipelines[1]];
      [s2 setKernelBuffer:t offset:0 atIndex:0];
      [s2 setKernelBuffer:y offset:0 atIndex:1];
      [s2 setKernelBuffer:c offset:0 atIndex:2];
      [s2 setKernelBuffer:args offset:k * kChunkStride atIndex:3];
      [s2 concurrentDispatchThreadgroups:groups threadsPerThreadgroup:MTLSizeMake(kThreads, 1, 1)];
    }
    auto replay = [&]() -> id<MTLCommandBuffer> {
      id<MTLCommandBuffer> cb = [q1 commandBuffer];
      id<MTLBlitCommandEncoder> blit = [cb blitCommandEncoder];
      [blit copyFromBuffer:hx sourceOffset:0 toBuffer:dx destinationOffset:0 size:bytes];
      [blit fillBuffer:t range:NSMakeRange(0, bytes) value:0xFF];
      [blit endEncoding];
      id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
      // commands in an indirect command buffer bind resources the encoder does not see: declare them
      [enc useResource:dx usage:MTLResourceUsageRead];
      [enc useResource:c usage:MTLResourceUsageRead];
      [enc useResource:args usage:MTLResourceUsageRead];
      [enc useResource:t usage:MTLResourceUsageRead | MTLResourceUsageWrite];
      [enc useResource:y usage:MTLResourceUsageWrite];
      [enc executeCommandsInBuffer:icb withRange:NSMakeRange(0, 2 * issued)];
      [enc endEncoding];
      blit = [cb blitCommandEncoder];
      [blit copyFromBuffer:y sourceOffset:0 toBuffer:hy destinationOffset:0 size:bytes];
      [blit endEncoding];
      [cb commit];
      return cb;
    };

    // --- run, check, time -------------------------------------------------------------------------
    id<MTLCommandBuffer> done = issue();
    [done waitUntilCompleted];
    check(done);
    if (callbacks.load() != (int)issued) fail("completed handlers did not run once per chunk", nil);
    std::vector<float> direct(static_cast<const float*>(hy.contents), static_cast<const float*>(hy.contents) + n);
    done = replay();
    [done waitUntilCompleted];
    check(done);
    if (std::memcmp(direct.data(), hy.contents, bytes) != 0) fail("replay and direct issue disagree", nil);
    FILE* out = std::fopen((dir + "/out_y.bin").c_str(), "wb");
    if (!out || std::fwrite(hy.contents, sizeof(float), n, out) != n) fail("cannot write out_y.bin", nil);
    std::fclose(out);

    auto median_ms = [&](auto launch) {
      std::vector<double> times;
      for (int i = 0; i < iters + 3; ++i) {  // three untimed runs first
        auto t0 = std::chrono::steady_clock::now();
        id<MTLCommandBuffer> cb = launch();
        [cb waitUntilCompleted];
        check(cb);
        if (i >= 3) times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(times.begin(), times.end());
      return times[times.size() / 2];
    };
    const double replay_ms = median_ms(replay);
    const double direct_ms = median_ms(issue);
    std::printf("{\"ms\": %.6f, \"device\": \"%s\", \"apple7\": %s, \"max_threadgroup\": %lu, \"peer_pairs\": %d, "
                "\"direct_ms\": %.6f, \"graph_speedup\": %.3f, \"occupancy\": \"stencil %lu threads max, SIMD %lu, "
                "%lu tiles of threadgroup memory per core\", \"heap_offset_y\": %lu, \"shader_log_messages\": %d}\n",
                replay_ms, device.name.UTF8String, apple7 ? "true" : "false", (unsigned long)max_group.width,
                peer_pairs, direct_ms, direct_ms / replay_ms, (unsigned long)stencil_max, (unsigned long)simd_width,
                (unsigned long)tiles_per_core, (unsigned long)y.heapOffset, logged.load());

    // --- teardown: Metal objects are freed when their last reference goes ---------------------
    icb = nil;
    t = nil;
    pool = nil;
    dx = nil;
    y = nil;
    placed = nil;
    hx = nil;  // the no-copy buffer must be gone before the memory under it is freed
    std::free(host_x);
  }
  return 0;
}
