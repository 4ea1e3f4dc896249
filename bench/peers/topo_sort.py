#!/usr/bin/env python3
"""topo_sort.py: the topo_sort lab has no PyTorch peer, and this script prints no row.

PyTorch has no topological sort, and the libraries that do (networkx, graphlib) are
single-threaded Python, far slower than C. The lab's peer is a single-thread C
implementation of Kahn's algorithm that the checker (grader/labs/topo_sort.c) runs on
every timed graph of the bench case, in the same run as the solution; its median is in
the case's shape text ("CPU Kahn (1 thread): ... ms") and the speed-up is quoted from it
(docs/PERFORMANCE.md). bench/side_by_side.sh runs this script like every peer: it explains
itself on stderr and leaves the peer columns empty."""
import sys

print("topo_sort: no PyTorch peer; the single-thread CPU Kahn is timed by the checker "
      "(see the bench case's shape text)", file=sys.stderr)
