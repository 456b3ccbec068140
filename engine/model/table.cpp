#include "engine/model/table.hpp"

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

void advise_huge_pages(void* block, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  if (bytes < 2 * kHugePage) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)block;
  (void)bytes;
#endif
}
#endif

}  // namespace

void* grow_block(void* old, size_t old_bytes, bool old_mapped, size_t used, size_t bytes, size_t* got,
                 bool* mapped) {
#if defined(__linux__)
  if (bytes >= kMapBytes) {
    const size_t size = page_round(bytes);
    void* block = MAP_FAILED;
    if (old_mapped) block = mremap(old, page_round(old_bytes), size, MREMAP_MAYMOVE);
    if (block == MAP_FAILED) {  // a first mapping, or a system that would not move one (valgrind)
      block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) throw std::bad_alloc();
      if (old) {
        std::memcpy(block, old, used);
        release_block(old, old_bytes, old_mapped);
      }
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

void release_block(void* block, size_t bytes, bool mapped) {
#if defined(__linux__)
  if (mapped) {
    munmap(block, page_round(bytes));
    return;
  }
#endif
  (void)bytes;
  (void)mapped;
  std::free(block);
}

}  // namespace gs::model::table_storage
