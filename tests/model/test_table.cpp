// Table<T>, the trace's growable record array (engine/model/table.hpp): what it holds
// survives growth (also past the size where it moves to its own mapping), copies, moves and
// clears, like the std::vector it replaced.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "engine/model/table.hpp"
#include "engine/model/trace.hpp"

using gs::model::Table;

namespace {
// Event is 32 bytes; 100000 of them pass the 256 KiB at which a table gets its own mapping
// several times over, growing by doubling from 16.
gs::model::Event event(uint32_t i) {
  return {.cycle = 3ull * i, .kind = gs::model::EventKind::warp_inst, .warp = uint16_t(i % 7), .inst = i,
          .mask = ~i, .payload = i * 5, .a = i ^ 0x55u};
}
bool holds_events(const Table<gs::model::Event>& t, uint32_t n) {
  if (t.size() != n) return false;
  for (uint32_t i = 0; i < n; ++i) {
    const gs::model::Event e = event(i);
    const gs::model::Event& got = t[i];
    if (got.cycle != e.cycle || got.warp != e.warp || got.inst != e.inst || got.mask != e.mask ||
        got.payload != e.payload || got.a != e.a)
      return false;
  }
  return true;
}
}  // namespace

TEST_CASE("table: records survive growth, copies and moves", "[model][trace]") {
  Table<gs::model::Event> t;
  CHECK(t.empty());
  constexpr uint32_t kN = 100000;
  for (uint32_t i = 0; i < kN; ++i) t.push_back(event(i));
  CHECK(t.capacity() >= kN);
  CHECK(holds_events(t, kN));

  Table<gs::model::Event> copy = t;
  CHECK(holds_events(copy, kN));
  copy.push_back(event(kN));  // the copy is its own storage
  CHECK(holds_events(t, kN));
  CHECK(holds_events(copy, kN + 1));

  Table<gs::model::Event> moved = std::move(copy);
  CHECK(holds_events(moved, kN + 1));
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from table is empty
  copy = moved;
  CHECK(holds_events(copy, kN + 1));
  copy = copy;  // NOLINT: self-assignment keeps the records
  CHECK(holds_events(copy, kN + 1));

  moved.clear();
  CHECK(moved.empty());
  for (uint32_t i = 0; i < 10; ++i) moved.push_back(event(i));
  CHECK(holds_events(moved, 10));
}

TEST_CASE("table: append, resize, at and equality behave as std::vector's", "[model][trace]") {
  Table<uint32_t> a;
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < 200000; ++i) v.push_back(i * 2654435761u);
  a.append(v.data(), v.data() + v.size());
  REQUIRE(a.size() == v.size());
  CHECK(std::equal(a.begin(), a.end(), v.begin()));
  CHECK(a.front() == v.front());
  CHECK(a.back() == v.back());
  CHECK(a.at(7) == v[7]);
  CHECK_THROWS_AS(a.at(v.size()), std::out_of_range);

  Table<uint32_t> b{1, 2, 3};
  CHECK(b.size() == 3);
  b.resize(6);  // new records are zero
  CHECK(b == Table<uint32_t>{1, 2, 3, 0, 0, 0});
  CHECK_FALSE(b == Table<uint32_t>{1, 2, 3, 0, 0});
  b.pop_back();
  CHECK(b == Table<uint32_t>{1, 2, 3, 0, 0});
  b.reserve(1 << 20);
  CHECK(b.capacity() >= (1u << 20));
  CHECK(b == Table<uint32_t>{1, 2, 3, 0, 0});
}

TEST_CASE("table: a released mapping is grown into by the next table, its records intact", "[model][trace]") {
  constexpr uint32_t kN = 100000;  // 3.2 MB: past the mapping size
  {
    Table<gs::model::Event> first;
    for (uint32_t i = 0; i < kN; ++i) first.push_back(event(i));
  }
  const size_t kept = gs::model::table_storage::cached_bytes();
#if defined(__linux__)
  CHECK(kept >= kN * sizeof(gs::model::Event));
#endif
  // Two tables growing side by side: each growth past the mapping size may take a kept
  // mapping (copying its records) or grow its own; either way every record survives.
  Table<gs::model::Event> a, b;
  for (uint32_t i = 0; i < kN; ++i) {
    a.push_back(event(i));
    if (i % 2 == 0) b.push_back(event(i / 2));
  }
  CHECK(holds_events(a, kN));
  CHECK(holds_events(b, kN / 2));
#if defined(__linux__)
  CHECK(gs::model::table_storage::cached_bytes() < kept);  // a kept mapping was taken
#endif
  CHECK(gs::model::table_storage::cached_bytes() <= (size_t(256) << 20));
}
