#include "engine/model/table.hpp"

#include <cstddef>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace gs::model::table_storage {

namespace {

// Tables of at least this many bytes get their own mapping (Linux).
constexpr size_t kMapBytes = size_t(256) << 10;
// A mapping of at least twice this is offered to the kernel for transparent huge pages
// (madvise; a hint it may ignore), so that one fault maps 2 MiB instead of 4 KiB.
constexpr size_t kHugePage = size_t(2) << 20;

#if defined(__linux__)
size_t page_round(size_t bytes) {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

// The whole mapping, not its 2-MiB-aligned middle: advice on part of a mapping splits it into
// several (the kernel keeps one flag set per mapping), and mremap refuses to grow a range that
// spans more than one (EFAULT), so every later growth of such a table fell back to a new
// mapping and a copy of the records, each copied page a fresh fault (simt_blocktile_2d 32x32x512
// traced: 17 refused growths in 6 runs). The kernel backs the aligned 2 MiB of it with huge
// pages where it can either way.
void advise_huge_pages(void* block, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  if (bytes >= 2 * kHugePage) madvise(block, bytes, MADV_HUGEPAGE);
#else
  (void)block;
  (void)bytes;
#endif
}

// Mappings a table released, kept for the next tables to grow into, up to kCacheBytes in all:
// their pages are mapped already. A traced run's tables are released when its trace goes, and
// the next run (the app's next step or run, a sweep's next point, a bench's next repeat) grows
// the same tables again; fresh pages cost a fault each, which on a virtual machine that traps
// faults to its host was most of a traced run (simt_smem_tiling 32x32x512 traced: 2 400 faults,
// 37 ms of system time against 33 ms of the model's own).
constexpr size_t kCacheBytes = size_t(256) << 20;
struct Cached {
  void* block;
  size_t bytes;
};
struct Cache {
  std::mutex mutex;
  std::vector<Cached> blocks;  // oldest first; guarded by mutex
  size_t bytes = 0;            // guarded by mutex
};
// Never destroyed: a table that outlives the others (a static one, at exit) still releases
// into it.
Cache& the_cache() {
  static Cache* const cache = new Cache;
  return *cache;
}

// The smallest cached mapping of at least `bytes` (page-rounded), taken out of the cache, or
// nullptr.
void* take_cached(size_t bytes, size_t* got) {
  Cache& k = the_cache();
  const std::lock_guard<std::mutex> lock(k.mutex);
  size_t best = k.blocks.size();
  for (size_t i = 0; i < k.blocks.size(); ++i)
    if (k.blocks[i].bytes >= bytes && (best == k.blocks.size() || k.blocks[i].bytes < k.blocks[best].bytes)) best = i;
  if (best == k.blocks.size()) return nullptr;
  const Cached c = k.blocks[best];
  k.blocks.erase(k.blocks.begin() + ptrdiff_t(best));  // the others keep their order
  k.bytes -= c.bytes;
  *got = c.bytes;
  return c.block;
}

// Keeps a released mapping for later, the oldest kept ones unmapped to make room (the newest are
// the likeliest to be grown into again: the same run repeated); one larger than the whole cache
// is unmapped at once.
void keep_or_unmap(void* block, size_t bytes) {
  if (bytes > kCacheBytes) {
    munmap(block, bytes);
    return;
  }
  Cache& k = the_cache();
  std::vector<Cached> evicted;
  {
    const std::lock_guard<std::mutex> lock(k.mutex);
    size_t drop = 0;
    while (k.bytes + bytes > kCacheBytes) k.bytes -= k.blocks[drop++].bytes;
    evicted.assign(k.blocks.begin(), k.blocks.begin() + ptrdiff_t(drop));
    k.blocks.erase(k.blocks.begin(), k.blocks.begin() + ptrdiff_t(drop));
    k.blocks.push_back({block, bytes});
    k.bytes += bytes;
  }
  for (const Cached& c : evicted) munmap(c.block, c.bytes);
}
#endif

}  // namespace

void* grow_block(void* old, size_t old_bytes, bool old_mapped, size_t used, size_t bytes, size_t* got,
                 bool* mapped) {
#if defined(__linux__)
  if (bytes >= kMapBytes) {
    size_t size = page_round(bytes);
    // The records into a new block, the old one released (to the cache, if a mapping).
    const auto move_records = [&](void* block) {
      if (!old) return;
      std::memcpy(block, old, used);
      release_block(old, old_bytes, old_mapped);
    };
    if (void* cached = take_cached(size, &size)) {
      move_records(cached);
      *got = size;
      *mapped = true;
      return cached;
    }
    void* block = MAP_FAILED;
    if (old_mapped) block = mremap(old, page_round(old_bytes), size, MREMAP_MAYMOVE);
    if (block == MAP_FAILED) {  // a first mapping, or a system that would not move one (valgrind)
      block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) throw std::bad_alloc();
      move_records(block);
    }
    advise_huge_pages(block, size);
    *got = size;
    *mapped = true;
    return block;
  }
#endif
  (void)old_bytes;
  (void)old_mapped;
  (void)used;
  void* block = std::realloc(old, bytes);
  if (!block) throw std::bad_alloc();
  *got = bytes;
  *mapped = false;
  return block;
}

size_t cached_bytes() {
#if defined(__linux__)
  Cache& k = the_cache();
  const std::lock_guard<std::mutex> lock(k.mutex);
  return k.bytes;
#else
  return 0;
#endif
}

void release_block(void* block, size_t bytes, bool mapped) {
#if defined(__linux__)
  if (mapped) {
    keep_or_unmap(block, page_round(bytes));
    return;
  }
#endif
  (void)bytes;
  (void)mapped;
  std::free(block);
}

}  // namespace gs::model::table_storage
