#include "tools/sim/simulator.h"

#include <chrono>

#include "tools/sim/policy_simulation.h"

namespace bk::sim {
namespace {

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

PolicyRun SimulatePolicy(const Scenario& scenario,
                         placement::Weighting weighting, uint64_t seed) {
  // Wall time is measured for the report only; it never feeds the model.
  const auto start = std::chrono::steady_clock::now();
  PolicySimulation run(scenario, weighting, seed);
  PolicyRun result = run.Go();
  result.wall_seconds = Since(start);
  return result;
}

SimulationResult Simulate(const Scenario& scenario, uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  SimulationResult result;
  result.scenario = scenario;
  result.seed = seed;
  for (placement::Weighting w : scenario.policies) {
    result.runs.push_back(SimulatePolicy(scenario, w, seed));
  }
  result.wall_seconds = Since(start);
  return result;
}

}  // namespace bk::sim
