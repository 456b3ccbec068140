// The tensor cores' batched operand read (read_operand_rows, engine/model/exec_wgmma.cpp) against
// the row-by-row one it stands for (read_operand_row): on the same shared memory and records,
// every row's values bit for bit in its own place, the same first fault of each kind, and the
// same records left behind (ready bits, read notes), for every swizzle, both major-nesses, rows
// that reach outside the window, words a TMA load has not landed in, words never written,
// words written by ordinary stores and not fenced, in a cluster and alone.
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <random>

#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/timing.hpp"

using namespace gs;

namespace {

constexpr uint32_t kSmemBytes = 64 * 1024;

// A CTA's shared memory of random bytes whose words are all written and ready, but for the
// kinds of trouble `trouble` asks for, each on a few random words.
struct Troubles {
  bool tma_pending = false, unwritten = false, unfenced = false;
};

void set_up(model::Cta& c, model::Cluster* cluster, uint32_t seed, Troubles t) {
  std::mt19937 rng(seed);
  const uint32_t words = kSmemBytes / 4;
  c.launch.cluster = cluster;  // of two CTAs (a cluster of one keeps no read notes)
  if (cluster) cluster->ctas = {&c, &c};
  c.launch.cluster_rank = 0;
  c.releases = 5;
  c.smem.resize(kSmemBytes);
  for (uint8_t& b : c.smem) b = uint8_t(rng());
  c.smem_word_state.assign(words, model::SmemWord{});
  c.smem_tensor_word.assign(words, model::SmemTensorWord{});
  c.smem_ready.assign((words + 63) / 64, 0);
  c.tma_pending_bits.assign((words + 63) / 64, 0);
  c.smem_chunk_read.assign(kSmemBytes / 16, 0);
  for (model::SmemWord& s : c.smem_word_state) s.written = true;
  c.set_ready(0, words);
  const auto some_words = [&](auto&& mark) {
    for (int i = 0; i < 24; ++i) mark(uint32_t(rng() % words));
  };
  if (t.tma_pending)
    some_words([&](uint32_t w) {
      model::word_bits::mark<true>(c.tma_pending_bits, w, w + 1);
      c.clear_ready(w, w + 1);
    });
  if (t.unwritten)
    some_words([&](uint32_t w) {
      c.smem_word_state[w].written = false;
      c.clear_ready(w, w + 1);
    });
  if (t.unfenced)
    some_words([&](uint32_t w) {
      c.smem_word_state[w].generic_since_fence = true;
      c.note_unfenced(w);
    });
}

bool same_faults(const model::ReadFaults& a, const model::ReadFaults& b) {
  return a.outside == b.outside && a.tma_pending == b.tma_pending && a.unfenced == b.unfenced &&
         a.unwritten == b.unwritten && a.unacquired == b.unacquired && a.unacquired_rank == b.unacquired_rank &&
         (a.outside == model::kNone || (a.outside_operand == b.outside_operand && a.outside_desc == b.outside_desc));
}

bool same_records(const model::Cta& a, const model::Cta& b) {
  if (a.smem_ready != b.smem_ready || a.smem_chunk_read != b.smem_chunk_read) return false;
  for (size_t w = 0; w < a.smem_tensor_word.size(); ++w)
    if (a.smem_tensor_word[w].read_release != b.smem_tensor_word[w].read_release ||
        a.smem_tensor_word[w].landed_release != b.smem_tensor_word[w].landed_release ||
        a.smem_tensor_word[w].generic_read_release != b.smem_tensor_word[w].generic_read_release)
      return false;
  return true;
}

}  // namespace

TEST_CASE("the batched operand read gives what the row-by-row read gives", "[model][wgmma][tcgen05]") {
  const layout::Swizzle swizzles[] = {layout::Swizzle::none, layout::Swizzle::b32, layout::Swizzle::b64,
                                      layout::Swizzle::b128};
  const Troubles troubles[] = {{}, {true, false, false}, {false, true, false}, {false, false, true}, {true, true, true}};
  uint32_t cases = 0, fast_rows_differ = 0;
  for (const layout::Swizzle sw : swizzles)
    for (const bool k_major : {true, false})
      for (const bool in_cluster : {false, true})
        for (const Troubles& t : troubles)
          for (const uint32_t rows : {16u, 64u, 256u})
            for (const uint32_t place : {0u, 1u, 2u}) {
              // Start addresses inside the window, one near its end (the last rows reach out of
              // it), and one below it.
              layout::WgmmaDescriptor d;
              d.swizzle = sw;
              d.leading_byte_offset = sw == layout::Swizzle::none ? 128 : 1024;
              d.stride_byte_offset = sw == layout::Swizzle::none ? 256 : 1024;
              d.base_offset = 0;
              const uint32_t base = model::timing::kSmemBaseAddress;
              d.start_address = place == 0   ? base + 2048 + 32 * (cases % 4)
                                : place == 1 ? base + kSmemBytes - 8192
                                             : 0;
              const uint32_t seed = 1000 + cases;
              model::Cluster cluster_one, cluster_two;
              model::Cta one, two;
              set_up(one, in_cluster ? &cluster_one : nullptr, seed, t);
              set_up(two, in_cluster ? &cluster_two : nullptr, seed, t);
              const float scale = cases % 3 == 0 ? -1.0f : 1.0f;
              std::vector<float> by_row(size_t(rows) * 16), batched(size_t(rows) * 16);
              model::ReadFaults f_row, f_batched;
              for (uint32_t r = 0; r < rows; ++r)
                model::read_operand_row(one, d, 'B', 8 + r, k_major, scale, by_row.data() + 16 * r, f_row);
              model::read_operand_rows(two, d, 'B', 8, rows, k_major, scale,
                                       reinterpret_cast<float(*)[16]>(batched.data()), f_batched);
              INFO("swizzle " << int(sw) << ", k-major " << k_major << ", cluster " << in_cluster << ", rows "
                              << rows << ", place " << place);
              bool same = true;
              for (size_t i = 0; i < by_row.size(); ++i)
                same = same && std::bit_cast<uint32_t>(by_row[i]) == std::bit_cast<uint32_t>(batched[i]);
              CHECK(same);
              CHECK(same_faults(f_row, f_batched));
              CHECK(same_records(one, two));
              // The rows are not all alike (a row handed to another row's place would show).
              fast_rows_differ += std::memcmp(by_row.data(), by_row.data() + 16, 16 * sizeof(float)) != 0;
              ++cases;
            }
  CHECK(cases == 4 * 2 * 2 * 5 * 3 * 3);
  CHECK(fast_rows_differ > cases / 2);
}

TEST_CASE("B's columns go into its rows as the element loop puts them", "[model][wgmma][tcgen05]") {
  std::mt19937 rng(7);
  for (const uint32_t n : {8u, 24u, 128u, 256u}) {
    alignas(16) float columns[256][16];
    for (auto& col : columns)
      for (float& v : col) v = std::bit_cast<float>(uint32_t(rng()) & 0xBFFFFFFFu);  // no NaN or infinity
    alignas(64) double b[16][256] = {};
    model::columns_into_b(columns, n, b);
    // The float rows (the float sums' B) and those widened (the double sums' B, taken that way
    // where a block of integers kept it in float first).
    alignas(64) float rows[16][256] = {};
    model::columns_into_rows(columns, n, rows);
    alignas(64) double widened[16][256] = {};
    model::widen_rows(rows, n, widened);
    bool same = true;
    for (uint32_t c = 0; c < n; ++c)
      for (uint32_t k = 0; k < 16; ++k)
        same = same && b[k][c] == double(columns[c][k]) &&
               std::bit_cast<uint32_t>(rows[k][c]) == std::bit_cast<uint32_t>(columns[c][k]) &&
               std::bit_cast<uint64_t>(widened[k][c]) == std::bit_cast<uint64_t>(b[k][c]);
    CHECK(same);
  }
}

TEST_CASE("the pair read gives the batched read's rows and records where every row is quick, and nothing elsewhere",
          "[model][wgmma]") {
  const layout::Swizzle swizzles[] = {layout::Swizzle::none, layout::Swizzle::b32, layout::Swizzle::b64,
                                      layout::Swizzle::b128};
  const Troubles troubles[] = {{}, {true, false, false}, {false, true, false}, {false, false, true}};
  uint32_t cases = 0, paired = 0, declined = 0;
  for (const layout::Swizzle sw : swizzles)
    for (const bool in_cluster : {false, true})
      for (const Troubles& t : troubles)
        for (const uint32_t place : {0u, 1u, 2u})
          for (const float scale : {1.0f, -1.0f}) {
            layout::WgmmaDescriptor d;
            d.swizzle = sw;
            d.leading_byte_offset = sw == layout::Swizzle::none ? 128 : 1024;
            d.stride_byte_offset = sw == layout::Swizzle::none ? 256 : 1024;
            const uint32_t base = model::timing::kSmemBaseAddress;
            // Inside the window; its last bytes (row0 64 on reaches out); below it.
            d.start_address = place == 0 ? base + 2048 + 32 * (cases % 4) : place == 1 ? base + kSmemBytes - 4096 : 0;
            const uint32_t row0 = place == 1 ? 64 : 16;
            const uint32_t seed = 5000 + cases;
            model::Cluster cluster_one, cluster_two;
            model::Cta one, two;
            set_up(one, in_cluster ? &cluster_one : nullptr, seed, t);
            set_up(two, in_cluster ? &cluster_two : nullptr, seed, t);
            alignas(64) float by_rows[16][16];
            model::ReadFaults f;
            model::read_operand_rows(one, d, 'A', row0, 16, true, scale, by_rows, f);
            alignas(64) uint32_t pairs[16][8];
            const bool quick = model::read_operand_pairs(two, d, row0, 16, scale, pairs);
            INFO("swizzle " << int(sw) << ", cluster " << in_cluster << ", place " << place << ", scale " << scale);
            const bool clean = f.outside == model::kNone && f.tma_pending == model::kNone &&
                               f.unfenced == model::kNone && f.unwritten == model::kNone;
            if (quick) {
              ++paired;
              CHECK(clean);
              alignas(64) float from_pairs[16][16];
              model::pairs_to_rows(pairs, 16, scale, from_pairs);
              CHECK(std::memcmp(by_rows, from_pairs, sizeof by_rows) == 0);
              CHECK(same_records(one, two));
              // The words are the operand's bf16 as they are, the sign flipped for scale -1.
              for (uint32_t r = 0; r < 16; ++r)
                for (uint32_t k = 0; k < 16; ++k) {
                  const uint16_t h = uint16_t(pairs[r][k / 2] >> (16 * (k % 2)));
                  CHECK(std::bit_cast<uint32_t>(by_rows[r][k]) == std::bit_cast<uint32_t>(
                                                                      scale * std::bit_cast<float>(uint32_t(h ^ (scale < 0 ? 0x8000u : 0u)) << 16)));
                }
            } else {
              ++declined;
              // Nothing noted: the records are those of a CTA nothing read.
              model::Cluster cluster_three;
              model::Cta three;
              set_up(three, in_cluster ? &cluster_three : nullptr, seed, t);
              CHECK(same_records(two, three));
            }
            ++cases;
          }
  CHECK(cases == 4 * 2 * 4 * 3 * 2);
  CHECK(paired > 0);
  CHECK(declined > 0);
}
