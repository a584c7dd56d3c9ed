#pragma once
// Hopper's bulk asynchronous copy (TMA, cp.async.bulk) from global to shared memory, completed
// on a shared-memory mbarrier. One thread issues a copy of many kilobytes with one
// instruction, and its bytes are in flight without holding registers: a thread block can
// stage its whole contiguous slice of a matrix while its warps wait on nothing else.
// sm_90 and later only; callers check the device (bulk_copy_supported) and never launch a
// kernel that uses these on older GPUs, whose device code here traps.
//
// Requirements of the hardware: source and destination 16-byte aligned, sizes multiples of 16.
// stage_range() takes any range of 4-byte words and handles its unaligned ends.
#include <cuda_runtime.h>

#include <cstdint>

namespace ppsparse::backend::cuda {

inline bool bulk_copy_supported() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return false;
  return major >= 9;
}

// Device functions: their instructions exist on sm_90 and later; the host pass and older
// architectures compile a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PPSPARSE_BULK_COPY 1
#else
#define PPSPARSE_BULK_COPY 0
#endif

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// An mbarrier expecting one arrival (the thread that issues the copies).
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar) {
#if PPSPARSE_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
  // Makes the initialisation visible to the copy engine (the async proxy).
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  __trap();
#endif
}

// The issuing thread's arrival, announcing `bytes` of copies to complete on the barrier.
__device__ __forceinline__ void mbarrier_arrive_expect(std::uint64_t* bar, unsigned bytes) {
#if PPSPARSE_BULK_COPY
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}

// Waits until the barrier's phase `parity` completed (every announced byte arrived).
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
#if PPSPARSE_BULK_COPY
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
#else
  __trap();
#endif
}

// An L2 policy for data read exactly once: its lines are the first evicted, so that a
// stream does not push reused data (the gathered vector) out of the L2.
__device__ __forceinline__ std::uint64_t l2_evict_first_policy() {
#if PPSPARSE_BULK_COPY
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
#else
  __trap();
  return 0;
#endif
}

// One bulk copy of `bytes` (a multiple of 16) from global src to shared dst, both 16-byte
// aligned, completing on bar. evict_first: the policy above, else the default.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar,
                                          bool evict_first) {
#if PPSPARSE_BULK_COPY
  if (evict_first)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::
            "r"(smem_address(dst)),
        "l"(src), "r"(bytes), "r"(smem_address(bar)), "l"(l2_evict_first_policy())
        : "memory");
  else
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_address(dst)),
                 "l"(src), "r"(bytes), "r"(smem_address(bar))
                 : "memory");
#else
  __trap();
#endif
}

// Where stage_range() put a range: word w of the global range [first, last) is at
// shared[w - first + shift].
struct StagedRange {
  unsigned shift = 0;  // words between the buffer's start and the range's first word
};

// Stages words [first, last) of the 16-byte aligned global array `base` (of `size` words)
// into the 16-byte aligned shared buffer `buf` (room for last - first + 8 words), called by
// one thread. The aligned middle goes by one bulk copy completing on bar; its bytes are added
// to *tx, which the thread announces with mbarrier_arrive_expect after its last copy (a
// phase's transaction count may go below zero until then: the pending arrival holds the
// phase open). Words past the array's last 16-byte boundary are read with ordinary loads, so
// the copy never reads past the array's end; the caller makes those stores visible with a
// __syncthreads after this thread returns.
template <class Word>
__device__ __forceinline__ StagedRange stage_range(Word* buf, const Word* base, long long first, long long last,
                                                   long long size, std::uint64_t* bar, unsigned* tx,
                                                   bool evict_first) {
  static_assert(sizeof(Word) == 4, "4-byte words: four to a 16-byte unit");
  StagedRange r;
  if (last <= first) return r;
  const long long a0 = first & ~3LL;                  // aligned down to 16 bytes
  const long long a1 = min((last + 3) & ~3LL, size & ~3LL);  // aligned up, but within the array
  r.shift = static_cast<unsigned>(first - a0);
  if (a1 > a0) {
    const unsigned bytes = static_cast<unsigned>((a1 - a0) * 4);
    bulk_copy(buf, base + a0, bytes, bar, evict_first);
    *tx += bytes;
  }
  for (long long w = max(a1, a0); w < last; ++w) buf[w - a0] = base[w];  // the array's last < 4 words
  return r;
}

}  // namespace ppsparse::backend::cuda

#undef PPSPARSE_BULK_COPY
