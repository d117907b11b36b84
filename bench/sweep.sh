#!/bin/sh
# Where each placement policy breaks: sweeps report age (1..60 s) and client
# count (1..50, total topics fixed) around bench/scenarios/sweep_base.yaml and
# prints Markdown tables (p99 s, stddev MB/s, peak herd index per policy).
# Usage: bench/sweep.sh [BKCTL] [SEED]
set -eu
BKCTL=${1:-build/bin/bkctl}
SEED=${2:-1}
exec "$BKCTL" placement sweep --scenario bench/scenarios/sweep_base.yaml \
  --seed "$SEED" --report-intervals 1,5,15,30,60 --clients 1,5,10,20,50
