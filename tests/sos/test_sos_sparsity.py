"""Term sparsity (verify._sos.sparsity): the split loses nothing, and certificates stay exact per block.

The lossless claim is tested exactly: a *dense* feasible Gram matrix (a planted block-diagonal one
plus random cancelling cross entries) keeps the identity when its cross-component entries are
zeroed.  The pipeline with and without the split gives the same verdicts.
"""
from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F

import pytest
import sympy

from theorems.verdict import Status
from verify._sos import poly
from verify._sos.certificate import freeze
from verify._sos.options import SOSOptions
from verify._sos.parse import to_exact
from verify._sos.program import GramBlock, GramProgram
from verify._sos.prove import TERM_SPARSITY_FROM, build_program, prove_exact
from verify._sos.sparsity import block_components, split_blocks

x, y, z = sympy.symbols("x y z")


def _program(p, variables, ineqs=(), degree=None):
    exact = to_exact(p, variables, "p")
    gs = [to_exact(g, variables, "g") for g in ineqs]
    d = degree or max(poly.degree(exact), 2)
    return build_program(exact, len(variables), gs, (), d + d % 2, False)


def test_three_squares_split_into_three_blocks():
    program = _program(x**2 + y**2 + 1, [x, y])
    assert [list(b.basis) for b in program.blocks] == [[(0, 0), (1, 0), (0, 1)]]
    assert block_components(program) == [[[0], [1], [2]]]
    assert [b.basis for b in split_blocks(program).blocks] == [((0, 0),), ((1, 0),), ((0, 1),)]


def test_a_cross_term_joins_its_monomials():
    program = _program((x + y) ** 2 + 1, [x, y])
    assert block_components(program) == [[[0], [1, 2]]]


def _fixed_point_holds(program) -> int:
    """Check the fixed-point property of the split directly; returns the number of cross pairs."""
    groups = block_components(program)
    support = {m for m, _ in program.targets[0]}
    for block, found in zip(program.blocks, groups):
        for group in found:
            for j in group:
                for k in group:
                    pair = poly.mono_mul(block.basis[j], block.basis[k])
                    support.update(poly.mono_mul(w, pair) for w, _ in block.weight)
    cross = 0
    for block, found in zip(program.blocks, groups):
        where = {j: g for g, members in enumerate(found) for j in members}
        assert sorted(where) == list(range(len(block.basis)))
        for j in range(len(block.basis)):
            for k in range(j + 1, len(block.basis)):
                if where[j] != where[k]:
                    cross += 1
                    pair = poly.mono_mul(block.basis[j], block.basis[k])
                    assert all(poly.mono_mul(w, pair) not in support for w, _ in block.weight)
    return cross


def test_random_sparse_sums_of_squares_split_at_a_fixed_point():
    monos = [x**a * y**b * z**c for a in range(3) for b in range(3) for c in range(3) if a + b + c <= 3]
    cross = 0
    for seed in range(6):
        rng = random.Random(seed)
        forms = [sum(rng.choice([-1, 1]) * m for m in rng.sample(monos, 2)) for _ in range(3)]
        cross += _fixed_point_holds(_program(sympy.expand(sum(f**2 for f in forms) + 1), [x, y, z]))
    assert cross > 0  # some programs did split (the property was checked on real cross pairs)


def test_constrained_blocks_split_by_parity():
    """``2 - x^2 >= 0`` on ``1 - x^2 >= 0``: sigma_0 on (1, x, x^2) splits into {1, x^2} and {x},
    sigma_1 on (1, x) into {1} and {x}: every odd product falls outside the even support."""
    program = _program(sympy.Integer(2) - x**2, [x], ineqs=[1 - x**2], degree=4)
    assert [list(b.basis) for b in program.blocks] == [[(0,), (1,), (2,)], [(0,), (1,)]]
    assert block_components(program) == [[[0, 2], [1]], [[0], [1]]]
    assert _fixed_point_holds(program) == 3


def _parity_program(n: int, k: int, seed: int):
    """An even polynomial ``p = m^T Q m`` with ``Q`` block diagonal by parity class, plus the program."""
    basis = poly.monomials_up_to(n, 0, k)
    rng = random.Random(seed)
    parity = [tuple(e % 2 for e in m) for m in basis]
    Q = [[F(0)] * len(basis) for _ in basis]
    for i in range(len(basis)):
        for j in range(i, len(basis)):
            if parity[i] == parity[j]:
                Q[i][j] = Q[j][i] = F(rng.randint(-2, 2)) + (len(basis) if i == j else 0)
    p = poly.gram_poly({tuple([0] * n): F(1)}, basis, Q)
    program = GramProgram(n, (freeze(p),), (GramBlock(0, (), freeze({tuple([0] * n): F(1)}), tuple(basis)),), ())
    return basis, Q, p, program


@pytest.mark.parametrize("seed", range(4))
def test_zeroing_cross_entries_of_a_dense_feasible_gram_keeps_the_identity(seed):
    basis, Q, p, program = _parity_program(3, 3, seed)
    groups = block_components(program)[0]
    assert len(groups) > 1
    where = {j: g for g, members in enumerate(groups) for j in members}
    # A dense feasible point: add +c at one cross pair and -c at another with the same product.
    by_product: dict = {}
    for i in range(len(basis)):
        for j in range(i + 1, len(basis)):
            if where[i] != where[j]:
                by_product.setdefault(poly.mono_mul(basis[i], basis[j]), []).append((i, j))
    rng = random.Random(seed)
    dense = [row[:] for row in Q]
    changed = 0
    for pairs in by_product.values():
        if len(pairs) >= 2:
            (a, b), (c, d) = rng.sample(pairs, 2)
            value = F(rng.randint(1, 5), rng.randint(1, 3))
            dense[a][b] += value; dense[b][a] += value
            dense[c][d] -= value; dense[d][c] -= value
            changed += 1
    assert changed > 0
    one = {tuple([0] * 3): F(1)}
    assert poly.gram_poly(one, basis, dense) == p  # dense point is feasible
    kept = [[dense[i][j] if where[i] == where[j] else F(0) for j in range(len(basis))] for i in range(len(basis))]
    assert kept != dense and poly.gram_poly(one, basis, kept) == p


def test_split_blocks_partition_every_basis():
    _, _, _, program = _parity_program(3, 3, 0)
    split = split_blocks(program)
    assert len(split.blocks) > 1
    assert sorted(m for b in split.blocks for m in b.basis) == sorted(program.blocks[0].basis)
    assert all(dataclasses.replace(b, basis=()) == dataclasses.replace(program.blocks[0], basis=())
               for b in split.blocks)


def test_dense_programs_are_returned_unchanged():
    program = _program(sympy.expand((x + y + z + 1) ** 4), [x, y, z])
    assert split_blocks(program) is program


def test_sign_symmetric_sos_certifies_with_one_certificate_block_per_component():
    """An even SOS with a 35-monomial basis (above TERM_SPARSITY_FROM): split, certified, re-checked."""
    w = sympy.Symbol("w")
    vs = [x, y, z, w]
    p = sympy.expand(sum(v**6 for v in vs) + (x**2 * y - z**2 * y) ** 2 + (x * y * z + w**3) ** 2
                     + (x**2 + y**2 + z**2 + w**2) + 1)
    exact = to_exact(p, vs, "p")
    dense = prove_exact(exact, ("x", "y", "z", "w"), options=SOSOptions(refute=False, term_sparsity=False))
    split = prove_exact(exact, ("x", "y", "z", "w"), options=SOSOptions(refute=False))
    assert max(dense.stats.gram_blocks) >= TERM_SPARSITY_FROM
    assert dense.status is split.status is Status.HOLDS
    assert len(split.stats.gram_blocks) > 1 and max(split.stats.gram_blocks) < max(dense.stats.gram_blocks)
    assert split.certificate.recheck().holds and len(split.certificate.sos_terms) > 1
