"""Copying and walking machine code regions at the rate instrumentation needs.

Instrumenting every instruction of a library copies an allocated payload body into tens of
thousands of points. xDSL's ``Region.clone_into`` is general: it maps SSA values, clones
regions recursively, and builds each op through ``Operation.__init__`` and its checks,
about 9 µs per op. Machine code after register allocation has none of that: its ops
(``amdgpu_mc`` instructions, ``instr.return``) have no operands, results or regions, only
properties, attributes and successor blocks inside the region. :func:`copy_machine_region`
copies such a region by filling those fields and linking the ops directly (about 1 µs per
op); any other region goes through ``clone_into``.

Walking is the same: an instrumented library's functions hold a hundred thousand ops, and
the analyses and layout stages walk them a few dozen times in all. ``Block.ops`` goes
through an iterator object whose every step reads the ``next_op`` property;
:func:`block_ops` and :func:`region_ops` follow the links themselves, about 40% faster per
op, in the same order and with the same semantics (the next op is read before the caller
sees the current one: the caller may detach the op it is given, and an op it inserts
right after that one is not visited).

This relies on the layout of xDSL's ``Operation`` and ``Block`` (the version is pinned in
``pyproject.toml``); ``test_copy.py`` checks the copy against ``clone_into`` and the walks
against ``Block.ops``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.ir import Block, Operation, Region


def block_ops(block: Block) -> Iterator[Operation]:
    """The ops of ``block`` in order, as ``block.ops`` gives them (see the module's
    docstring)."""
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        following = op._next_op  # pyright: ignore[reportPrivateUsage]
        yield op
        op = following


def region_ops(region: Region) -> Iterator[Operation]:
    """The ops of every block of ``region``, block after block (not nested regions')."""
    block = region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        following_block = block._next_block  # pyright: ignore[reportPrivateUsage]
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            following = op._next_op  # pyright: ignore[reportPrivateUsage]
            yield op
            op = following
        block = following_block


def _is_flat(region: Region) -> bool:
    """Whether every op of ``region`` is properties, attributes and successors only, and
    every block has no arguments."""
    for block in region.blocks:
        if block.args:
            return False
        for op in block_ops(block):
            if op._operands or op.results or op.regions:  # pyright: ignore[reportPrivateUsage]
                return False
    return True


def copy_machine_region(source: Region, dest: Region) -> dict[Operation, Operation]:
    """Append copies of ``source``'s blocks to ``dest`` (successors mapped to the copies);
    returns each op of ``source`` -> its copy."""
    ops: dict[Operation, Operation] = {}
    if not _is_flat(source):
        source.clone_into(dest)
        for old, new in zip(source.walk(), dest.walk(), strict=True):
            ops[old] = new
        return ops
    copies = {block: Block() for block in source.blocks}
    for block, copy in copies.items():
        news: list[Operation] = []
        for op in block.ops:
            new = ops[op] = _copy_op(op, copies)
            news.append(new)
        _link(copy, news)
        dest.add_block(copy)
    return ops


def block_of(ops: Sequence[Operation]) -> Block:
    """A new block holding ``ops`` (detached, as :func:`copy_machine_ops` makes them),
    linked directly rather than through ``Block.add_op``'s checks."""
    block = Block()
    _link(block, ops)
    return block


def _link(block: Block, ops: Sequence[Operation]) -> None:
    """Make ``ops`` (detached, in order) the ops of the empty ``block``."""
    previous: Operation | None = None
    for new in ops:
        new.parent = block
        if previous is None:
            block._first_op = new  # pyright: ignore[reportPrivateUsage]
        else:
            previous._next_op = new  # pyright: ignore[reportPrivateUsage]
            new._prev_op = previous  # pyright: ignore[reportPrivateUsage]
        previous = new
    block._last_op = previous  # pyright: ignore[reportPrivateUsage]


def fill_block(block: Block, ops: Sequence[Operation]) -> None:
    """Make ``ops`` (detached and just made, in order) the ops of the empty ``block``,
    linked directly rather than through ``Block.add_op``'s checks (the lifter fills a
    library's blocks this way)."""
    assert block.first_op is None
    _link(block, ops)


def insert_new_ops_before(before: Operation, ops: Sequence[Operation]) -> None:
    """Insert ``ops`` (detached and just made, in order: no op of theirs can contain the
    block) before ``before``, linked directly: ``Block.insert_op_before`` checks each op's
    ancestry, and unpacking an instrumented library's packed payloads inserts millions."""
    block = before.parent_block()
    assert block is not None, "inserting before an op in no block"
    previous = before._prev_op  # pyright: ignore[reportPrivateUsage]
    for new in ops:
        assert new.parent is None, "inserting an op that is in a block"
        new.parent = block
        new._prev_op = previous  # pyright: ignore[reportPrivateUsage]
        if previous is None:
            block._first_op = new  # pyright: ignore[reportPrivateUsage]
        else:
            previous._next_op = new  # pyright: ignore[reportPrivateUsage]
        previous = new
    if previous is not None:
        previous._next_op = before  # pyright: ignore[reportPrivateUsage]
        before._prev_op = previous  # pyright: ignore[reportPrivateUsage]


def copy_machine_ops(ops: Sequence[Operation]) -> list[Operation]:
    """Detached copies of ops without operands, results, regions or successors (straight-line
    machine code), as :func:`copy_machine_region` copies them."""
    return [_copy_op(op, {}) for op in ops]


def successor_blocks(op: Operation) -> tuple[Block, ...]:
    """``op``'s successors without building xDSL's ``OpSuccessors`` view (hot loops over
    copied payloads read them for every op)."""
    return op._successors  # pyright: ignore[reportPrivateUsage]


def _copy_op(op: Operation, copies: dict[Block, Block]) -> Operation:
    """A detached copy of an op without operands, results or regions: the fields
    ``Operation.__init__`` would set, without its checks (the original passed them)."""
    cls = type(op)
    new = cls.__new__(cls)
    new.properties = op.properties.copy()
    new.attributes = op.attributes.copy()
    new.location = op.location
    successors = successor_blocks(op)
    if successors:
        new.successors = [copies.get(block, block) for block in successors]
    return new
