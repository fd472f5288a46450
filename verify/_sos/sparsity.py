"""Term sparsity: split every Gram block into the connected components of its term-sparsity graph.

TSSOS (Wang, Magron & Lasserre, *TSSOS: a moment-SOS hierarchy that exploits term sparsity*,
SIAM J. Optim. 2021), with the block closure (connected components made complete) iterated to its
fixed point, which loses nothing.  For each identity ``i`` let ``S_i`` be a set of monomials and,
for a block ``b`` of weight ``w_b`` and basis ``m``, join ``m_j`` and ``m_k`` when
``supp(w_b) + m_j + m_k`` meets ``S_i``.  Start from ``S_i`` = the support of the target, of
every free parameter's contribution and of every diagonal term ``supp(w_b) + 2 m_j``; add
``supp(w_b) + m_j + m_k`` for every pair inside one component; repeat until nothing is added.

**Why nothing is lost.**  At the fixed point a pair ``(j, k)`` inside a component contributes only to
monomials in ``S_i`` and a pair across two components only to monomials outside ``S_i`` (else the
two would be joined).  Outside ``S_i`` the target and the free parameters have no term, so in any
feasible point the cross pairs add up to zero on every such monomial; zeroing them keeps every
equation, and what remains is the direct sum of principal submatrices of ``X_b``: PSD, with at
least the same margin ``min eig``.  So the split program is feasible (with a given margin) exactly
when the dense one is.  It is also only a search-side choice: the certificate stores one Gram
block per component and the re-check verifies each one exactly, whatever basis it uses.

Chordal extensions that are not complete (cliques of a chordal graph, weaker relaxations) are not
used: with the block closure the split is exact, so no verdict can depend on it.
"""
from __future__ import annotations

import dataclasses
from . import poly
from .program import GramBlock, GramProgram


def _components(size: int, joined) -> list[list[int]]:
    parent = list(range(size))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for j in range(size):
        for k in range(j + 1, size):
            if find(j) != find(k) and joined(j, k):
                parent[find(k)] = find(j)
    groups: dict[int, list[int]] = {}
    for j in range(size):
        groups.setdefault(find(j), []).append(j)
    return sorted(groups.values())


def _supports(program: GramProgram) -> dict[int, set[poly.Monomial]]:
    support: dict[int, set[poly.Monomial]] = {i: {m for m, _ in t} for i, t in enumerate(program.targets)}
    for param in program.params:
        for identity, contribution in param.contributions:
            support.setdefault(identity, set()).update(m for m, _ in contribution)
    for block in program.blocks:
        target = support.setdefault(block.identity, set())
        for w, _ in block.weight:
            target.update(poly.mono_mul(w, poly.mono_mul(m, m)) for m in block.basis)
    return support


def block_components(program: GramProgram) -> list[list[list[int]]]:
    """For every block, its components at the fixed point (lists of basis indices, in order)."""
    support = _supports(program)
    while True:
        found = []
        for block in program.blocks:
            S = support[block.identity]
            weights = [w for w, _ in block.weight]
            basis = block.basis

            def joined(j: int, k: int, basis=basis, weights=weights, S=S) -> bool:
                pair = poly.mono_mul(basis[j], basis[k])
                return any(poly.mono_mul(w, pair) in S for w in weights)

            found.append(_components(len(basis), joined))
        if all(len(groups) <= 1 for groups in found):
            return found  # components only merge as the supports grow: nothing will split
        grew = False
        for block, groups in zip(program.blocks, found):
            S = support[block.identity]
            before = len(S)
            for group in groups:
                for a, j in enumerate(group):
                    for k in group[a:]:
                        pair = poly.mono_mul(block.basis[j], block.basis[k])
                        S.update(poly.mono_mul(w, pair) for w, _ in block.weight)
            grew = grew or len(S) != before
        if not grew:
            return found


def split_blocks(program: GramProgram) -> GramProgram:
    """``program`` with every block replaced by its components (the same program when none splits)."""
    found = block_components(program)
    if all(len(groups) <= 1 for groups in found):
        return program
    blocks: list[GramBlock] = []
    for block, groups in zip(program.blocks, found):
        for group in groups:
            blocks.append(dataclasses.replace(block, basis=tuple(block.basis[j] for j in group)))
    return dataclasses.replace(program, blocks=tuple(blocks))
