// The Blackwell facts table (blackwell_facts.def): every sm_100a fact the builder and the
// model rely on, each marked confirmed by a ptxas probe or unconfirmed (needs a B200). The
// app and README.md show the unconfirmed ones; tests/layout/blackwell_facts_test.cpp runs the
// probes and keeps README.md's list equal to the table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gs::layout {

enum class FactStatus : uint8_t { ptxas, unconfirmed };

struct BlackwellFact {
    std::string_view id;
    FactStatus status;
    std::string_view source;     // the probe, or where it was read
    std::string_view statement;  // the fact, in one sentence
};

std::span<const BlackwellFact> blackwell_facts();
const BlackwellFact* find_blackwell_fact(std::string_view id);  // nullptr when unknown
std::string_view fact_status_name(FactStatus s);                // "ptxas", "unconfirmed"

}  // namespace gs::layout
