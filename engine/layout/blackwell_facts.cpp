// The Blackwell facts table, generated from blackwell_facts.def. See blackwell_facts.hpp.
#include "engine/layout/blackwell_facts.hpp"

#include <array>
#include <cstdint>

namespace gs::layout {

namespace {

constexpr auto kFacts = std::to_array<BlackwellFact>({
#define FACT(id, status, source, statement) {#id, FactStatus::status, source, statement},
#include "engine/layout/blackwell_facts.def"
#undef FACT
});

}  // namespace

std::span<const BlackwellFact> blackwell_facts() { return kFacts; }

const BlackwellFact* find_blackwell_fact(std::string_view id) {
    for (const BlackwellFact& f : kFacts)
        if (f.id == id) return &f;
    return nullptr;
}

std::string_view fact_status_name(FactStatus s) {
    return s == FactStatus::ptxas ? "ptxas" : "unconfirmed";
}

}  // namespace gs::layout
