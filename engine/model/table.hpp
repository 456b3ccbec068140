// Table<T>: the growable array the trace keeps its records in (trace.hpp).
//
// A fully traced SIMT CTA appends about 120 bytes per warp-instruction to its tables, and a
// traced run spent most of its time on memory, not on the model: measured with perf on
// simt_naive 32x32x512 (every instruction traced), a quarter of the time went into copying
// std::vector buffers as they grew (memmove and grow_table) and a sixth into the kernel
// zeroing the fresh pages those copies landed on.
//
// A Table grows without copying where it can: past kMapBytes its records live in their own
// anonymous mapping, which grows with mremap (Linux), so the kernel moves the pages that are
// already written instead of the program copying them, and the pages of the old buffer are
// not faulted in twice. Capacity reserved and not yet written costs address space only.
// A released mapping is kept (up to a bound) for the next table to grow into, since its pages
// are mapped already: a traced run's tables are released with its trace and grown again by the
// next run. Smaller tables (and every table off Linux) use malloc/realloc. Records must be trivially
// copyable, which is what makes moving their bytes a valid copy.
//
// The interface is the part of std::vector the model, the views and the tests use.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace gs::model {

namespace table_storage {
// A block of at least `bytes` bytes for a table, grown from `old` (which holds `used` bytes
// that must survive; `old` may be nullptr). Sets *got to the usable size and *mapped to
// whether the block is a mapping (released with release_block(…, true)). Throws
// std::bad_alloc when the memory cannot be had. table.cpp.
void* grow_block(void* old, size_t old_bytes, bool old_mapped, size_t used, size_t bytes, size_t* got,
                 bool* mapped);
void release_block(void* block, size_t bytes, bool mapped);
// The bytes of released mappings kept for later tables to grow into (their pages are mapped
// already: a traced run's tables grow into the last run's), at most 256 MiB; 0 off Linux.
size_t cached_bytes();
}  // namespace table_storage

template <class T>
class Table {
  static_assert(std::is_trivially_copyable_v<T>, "table records are moved as bytes");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  Table() = default;
  Table(std::initializer_list<T> records) { append(records.begin(), records.end()); }
  Table(const Table& other) { append(other.begin(), other.end()); }
  Table(Table&& other) noexcept { take(other); }
  Table& operator=(const Table& other) {
    if (this != &other) {
      clear();
      append(other.begin(), other.end());
    }
    return *this;
  }
  Table& operator=(Table&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Table() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& at(size_t i) { return data_[checked(i)]; }
  const T& at(size_t i) const { return data_[checked(i)]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void reserve(size_t n) {
    if (n > capacity_) grow_to(n);
  }
  // Room for `extra` more records, growing by at least twice the capacity when it grows.
  void make_room(size_t extra) {
    if (capacity_ - size_ < extra) [[unlikely]]
      grow_to(std::max({size_ + extra, capacity_ * 2, kMinimumRecords}));
  }
  void push_back(const T& record) {
    make_room(1);
    data_[size_++] = record;
  }
  // Appends [first, last), which must not point into this table.
  void append(const T* first, const T* last) {
    const size_t n = size_t(last - first);
    if (n == 0) return;
    make_room(n);
    std::memcpy(static_cast<void*>(data_ + size_), first, n * sizeof(T));
    size_ += n;
  }
  void resize(size_t n) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) new (data_ + i) T{};
    size_ = n;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  friend bool operator==(const Table& a, const Table& b)
    requires requires(const T& x) { x == x; }
  {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr size_t kMinimumRecords = 16;
  size_t checked(size_t i) const {
    if (i >= size_) throw std::out_of_range("trace table index out of range");
    return i;
  }
  [[gnu::noinline]] void grow_to(size_t records) {
    size_t got = 0;
    bool mapped = false;
    void* block = table_storage::grow_block(data_, capacity_ * sizeof(T), mapped_, size_ * sizeof(T),
                                            records * sizeof(T), &got, &mapped);
    data_ = static_cast<T*>(block);
    capacity_ = got / sizeof(T);
    mapped_ = mapped;
  }
  void release() {
    if (data_) table_storage::release_block(data_, capacity_ * sizeof(T), mapped_);
    data_ = nullptr;
    size_ = capacity_ = 0;
    mapped_ = false;
  }
  void take(Table& other) {
    data_ = other.data_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    mapped_ = other.mapped_;
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
    other.mapped_ = false;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool mapped_ = false;
};

}  // namespace gs::model
