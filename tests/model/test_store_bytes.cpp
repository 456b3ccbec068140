// What a CTA's C stores bring to HBM (timing::CtaCost::global_store_bytes, the prediction's
// "stores" part): the bytes its lanes write, whatever sectors they touch on the way, since L2
// fills a sector from the stores that follow before it writes the sector back.
#include <catch2/catch.hpp>

#include "run/sim_job.hpp"

using namespace gs;

TEST_CASE("stores: a CTA's C reaches HBM once, also where each lane stores half a sector of its own row",
          "[model][timing][stores]") {
  // Step 21's epilogue: each lane of a warp holds one row of the tile (TMEM lane = row) and
  // stores 16 bytes of it at a time, half a sector; step 16's: four lanes fill each sector. Both
  // tiles are 128 x 256 of f32 and lie wholly inside C at 512^3: 128 KiB each.
  for (const char* id : {"blackwell_ws_ring", "hopper_fewer_arrivals"}) {
    INFO(id);
    const run::SimReport r = run::run_sim({.kernel_id = id, .shape = {512, 512, 512}, .only_traced_cta = true});
    REQUIRE(r.result.completed);
    // One tile a CTA at 512^3 (step 16's persistent grid has 8 CTAs for its 8 tiles).
    CHECK(r.result.stats.traced_cost.global_store_bytes == 128ull * 256 * 4);
  }
}
