#!/usr/bin/env python3
"""A model of a round-parallel form of FORMAT.md 8.2's two-queue Huffman
construction, for a block-parallel k_ebook (huffman.cu builds each codebook
in one thread: ~180 cycles a used symbol on an H200, the largest serial part
of a level-1 plan). Not used by the library; run it to check the design:

    python3 tools/huffman_rounds/model.py [trials]

The two-queue rule (leaves by (count, symbol) ascending, internal nodes in
creation order, the leaf taken on equal counts) picks the remaining items
in one merged order. A round: the two smallest items make s; every
remaining item of count <= s (a leaf on a tie; every waiting internal node
is <= s, internal counts never decrease) is taken before s, so these items
pair up in merged order, all pairs at once; if their number is odd, the
last one pairs with s itself (the next leaf is > s). The new internal
nodes join the queue in creation order. The model checks that the rounds
create the same internal nodes in the same order as the one-thread
construction (so parent[] and the leaf-children counts, hence the depths,
are the same) on random Laplacian-like histograms and on histograms of
small counts (ties), and prints the number of rounds: a median of 6-12
and at most 22 for 2..4096 used symbols, where the one-thread loop makes
m - 1 steps. On a GPU a round is a search for the number of items <= s
(leaves and queue, both sorted), ranks of those items in the other list
(merge path), and the pairs' sums: a few block barriers.
"""
import math
import random
import statistics
import sys


def two_queue(counts):
    """Internal nodes in creation order (FORMAT.md 8.2, one thread), each as
    (count, its two children: ("L", leaf index) or ("I", node index))."""
    leaves = sorted(c for c in counts if c > 0)
    m, inner, made, i, j = len(leaves), [], [], 0, 0
    for _ in range(m - 1):
        pick, kids = 0, []
        for _ in range(2):
            if i < m and (j >= len(inner) or leaves[i] <= inner[j]):
                pick += leaves[i]
                kids.append(("L", i))
                i += 1
            else:
                pick += inner[j]
                kids.append(("I", j))
                j += 1
        inner.append(pick)
        made.append((pick, tuple(kids)))
    return made


def by_rounds(counts):
    """The same nodes, made round by round; returns (rounds, nodes)."""
    leaves = sorted(c for c in counts if c > 0)
    m, inner, li, ij, rounds, made = len(leaves), [], 0, 0, 0, []

    def left():
        return (m - li) + (len(inner) - ij)

    def take():  # the next item in merged order: (count, ("L", i) or ("I", j))
        nonlocal li, ij
        if li < m and (ij >= len(inner) or leaves[li] <= inner[ij]):
            li += 1
            return leaves[li - 1], ("L", li - 1)
        ij += 1
        return inner[ij - 1], ("I", ij - 1)

    def peek():
        if li < m and (ij >= len(inner) or leaves[li] <= inner[ij]):
            return leaves[li]
        return inner[ij]

    while left() > 1:
        rounds += 1
        a, ka = take()
        b, kb = take()
        s = a + b
        base = len(inner)  # the index s gets in the queue (nodes are appended in creation order)
        new = [(s, (ka, kb))]
        s_taken = False
        while left() > 0 and peek() <= s:
            v, kv = take()
            if left() > 0 and peek() <= s:
                w, kw = take()
                new.append((v + w, (kv, kw)))
            else:  # odd: the last item pairs with s, the first of this round's nodes
                new.append((v + s, (kv, ("I", base))))
                s_taken = True
                break
        made.extend(new)
        inner.extend(c for c, _ in new)
        if s_taken:  # every older node was taken (all are <= s), so s is the queue's head
            assert ij == base
            ij += 1
    return rounds, made


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rng = random.Random(5)
    bad, seen = 0, []
    for _ in range(trials):
        K = rng.choice([16, 64, 256, 820, 4096])
        n = rng.choice([1e3, 1e5, 8e6])
        scale = rng.choice([0.5, 1, 3, 10, 30, 100])
        if rng.random() < 0.3:  # small counts: many equal counts, the tie rules matter
            counts = [rng.choice([0, 1, 1, 2, 2, 3, 4, 6, 8]) for _ in range(K)]
        else:
            counts = [int(n * math.exp(-abs(i - K // 2) / scale) / (2 * scale)) + (rng.random() < 0.3)
                      for i in range(K)]
        m = sum(1 for c in counts if c)
        if m < 2:
            continue
        r, made = by_rounds(counts)
        bad += made != two_queue(counts)
        seen.append((m, r))
    print(f"{len(seen)} histograms, {bad} with other nodes than the one-thread construction")
    for lo, hi in [(2, 64), (64, 256), (256, 1024), (1024, 5000)]:
        sel = [r for m, r in seen if lo <= m < hi]
        if sel:
            print(f"  {lo}..{hi - 1} used symbols: rounds median {statistics.median(sel)}, max {max(sel)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
