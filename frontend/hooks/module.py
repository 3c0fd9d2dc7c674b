"""``HookModule``: a tool's globals, hooks and insertions, built in Python.

It makes the same ``instr`` ops a tool writer would write in MLIR, in the order they are
declared, so a ``.py`` tool and its ``.mlir`` twin print the same IR::

    tool = HookModule()
    counter = tool.global_var("wave_count", size=8)

    @tool.hook()
    def count_wave(h: HookBuilder) -> None:
        h.atomic("add", h.global_addr(counter), h.const(1, i64))

    tool.insert(count_wave, at="instruction")
    tool.write("hooks.mlir")

A hook's Python parameters after the builder are its ``instr.hook`` parameters, typed by
``args=[...]`` and named after the Python names. ``luthier-opt --hooks tool.py`` runs the
file and takes its module-level ``hooks``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from io import StringIO
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.printer import Printer

from luthier.amdgpu_dialects.instr import ops
from luthier.frontend.hooks.args import Const, InsertionArg
from luthier.frontend.hooks.builder import HookBuilder
from luthier.frontend.hooks.symbols import Global, Hook
from luthier.frontend.hooks.values import HookType

#: A hook body: the builder, then one :class:`Value` per hook parameter (what it
#: returns is ignored).
HookBody = Callable[..., object]

_I64 = IntegerType(64)


class HookModule:
    """Globals, hooks and insertions of one tool; :attr:`module` is the ``instr`` IR."""

    def __init__(self) -> None:
        self._ops: list[Operation] = []
        self._globals: dict[str, Global] = {}
        self._hooks: dict[str, Hook] = {}

    # -- declarations ----------------------------------------------------------------

    def _claim(self, kind: str, name: str) -> None:
        if not name.isidentifier():
            raise ValueError(f"{kind} name {name!r} is not an identifier")
        if name in self._globals or name in self._hooks:
            raise ValueError(f"{kind} @{name}: the name is already declared in this hook "
                             "module")

    def global_var(self, name: str, size: int, alignment: int | None = None) -> Global:
        """``instr.global @name {size = ...}``: ``size`` bytes the tool owns, zero at
        load, exported under ``name``."""
        self._claim("global", name)
        if size <= 0:
            raise ValueError(f"global @{name} needs a positive size, not {size}")
        properties: dict[str, Attribute] = {"sym_name": StringAttr(name),
                                            "size": IntegerAttr(size, _I64)}
        if alignment is not None:
            if alignment <= 0 or alignment & (alignment - 1):
                raise ValueError(f"global @{name}: alignment {alignment} is not a power "
                                 "of two")
            properties["alignment"] = IntegerAttr(alignment, _I64)
        self._ops.append(ops.GlobalOp.build(properties=properties))
        variable = Global(name, size, owner=self)
        self._globals[name] = variable
        return variable

    def hook(self, args: Sequence[HookType] = (),
             name: str | None = None) -> Callable[[HookBody], Hook]:
        """Decorator: build ``instr.hook`` from a function of a :class:`HookBuilder`
        and one value per type in ``args``; the hook is named after the function
        unless ``name`` says otherwise. The function runs once, now, to write the IR."""

        def build(body: HookBody) -> Hook:
            hook_name = name if name is not None else body.__name__
            self._claim("hook", hook_name)
            types = tuple(args)
            for type_ in types:
                if not isinstance(type_, Float32Type | Float64Type) \
                        and type_.bitwidth not in (1, 32, 64):
                    raise TypeError(f"hook @{hook_name}: a parameter must be i1, i32, "
                                    f"i64, f32 or f64, not {type_}")
            names = self._parameter_names(hook_name, body, len(types))
            builder = HookBuilder(hook_name, types, names, self._globals)
            outer, HookBuilder.current = HookBuilder.current, builder
            try:
                body(builder, *builder.args)
                block = builder.finish()
            finally:
                HookBuilder.current = outer
            self._ops.append(ops.HookOp(hook_name, types, Region(block)))
            hook = Hook(hook_name, types, owner=self)
            self._hooks[hook_name] = hook
            return hook

        return build

    @staticmethod
    def _parameter_names(hook: str, body: HookBody, count: int) -> list[str]:
        """The Python names of the hook's parameters (after the builder), checked
        against ``args``."""
        parameters = list(inspect.signature(body).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
            return []
        if len(parameters) != count + 1:
            raise TypeError(f"hook @{hook}: the function takes {len(parameters)} "
                            f"parameters; it needs the builder and {count} (one per "
                            "type in args=[...])")
        return [p.name for p in parameters[1:]]

    def insert(self, hook: Hook, at: str = "instruction", *, kernel: str | None = None,
               mnemonic: str | None = None, cls: str | None = None,
               first: int | None = None, last: int | None = None,
               args: Sequence[InsertionArg] = (), optional: bool = False,
               skip: str | None = None) -> None:
        """``instr.insert @hook {...}``: run ``hook`` at every point the selector
        matches (see ``instr.insert``), passing ``args`` (``Const``, ``Reg``,
        ``Operand``, ``Site``). With ``optional``, matching nothing is not an error; with
        ``skip = "reason"``, nothing is placed: the matches are counted and reported, per
        function, with the reason (what the tool leaves out)."""
        if self._hooks.get(hook.name) is not hook:
            raise ValueError(f"insertion of @{hook.name}: the hook is not from this hook "
                             "module")
        if at not in ops.INSERTION_POINTS:
            raise ValueError(f"insertion of @{hook.name}: at={at!r} is not one of "
                             f"{', '.join(ops.INSERTION_POINTS)}")
        if len(args) != len(hook.arg_types):
            raise TypeError(f"insertion of @{hook.name}: the hook takes "
                            f"{len(hook.arg_types)} arguments, the insertion passes "
                            f"{len(args)}")
        for position, (arg, type_) in enumerate(zip(args, hook.arg_types, strict=True)):
            if isinstance(arg, Const) and arg.type != type_:
                raise TypeError(f"insertion of @{hook.name}: argument {position} "
                                f"({arg}) is {arg.type}, the hook takes {type_}")
            if not isinstance(arg, Const) and arg.bits is not None and (
                    arg.bits != type_.bitwidth or isinstance(type_, Float32Type | Float64Type)):
                raise TypeError(f"insertion of @{hook.name}: argument {position} "
                                f"({arg}) is {arg.bits} bits, the hook takes {type_}")
        if first is not None and first < 0 or \
                first is not None and last is not None and last < first:
            raise ValueError(f"insertion of @{hook.name}: the index range {first}..{last} "
                             "is empty")
        if skip is not None and not skip.strip():
            raise ValueError(f"insertion of @{hook.name}: skip needs a reason (what the "
                             "report says of the instructions left out)")
        properties: dict[str, Attribute] = {"hook": SymbolRefAttr(hook.name),
                                            "at": StringAttr(at)}
        for key, text in (("kernel", kernel), ("mnemonic", mnemonic), ("class", cls)):
            if text is not None:
                properties[key] = StringAttr(text)
        for key, index in (("first", first), ("last", last)):
            if index is not None:
                properties[key] = IntegerAttr(index, _I64)
        if optional:
            properties["optional"] = UnitAttr()
        if skip is not None:
            properties["skip"] = StringAttr(skip)
        properties["args"] = ArrayAttr(arg.attr() for arg in args)
        self._ops.append(ops.InsertOp.build(properties=properties))

    # -- other hook files ------------------------------------------------------------

    def include(self, module: ModuleOp) -> dict[str, Hook | Global]:
        """Take the globals, hooks and insertions of an ``instr`` module (a hook file
        loaded by :func:`luthier.load_hooks`: MLIR, or HIP compiled by clang-19) as this
        module's own, so that Python can insert its hooks or build beside them; returns
        the handles by name::

            hooks = HookModule()
            names = hooks.include(luthier.load_hooks("instr_count_vector.hip"))
            hooks.insert(names["countInstructionsVector"], at="instruction",
                         mnemonic="global_store*", args=[Const(0, i1)])
        """
        handles: dict[str, Hook | Global] = {}
        for op in module.ops:
            if isinstance(op, ops.GlobalOp):
                name = op.sym_name.data
                self._claim("global", name)
                variable = Global(name, op.size.value.data, owner=self)
                self._globals[name] = variable
                handles[name] = variable
            elif isinstance(op, ops.HookOp):
                name = op.sym_name.data
                self._claim("hook", name)
                types = tuple(cast(HookType, t) for t in op.function_type.inputs.data)
                hook = Hook(name, types, owner=self)
                self._hooks[name] = hook
                handles[name] = hook
            elif not isinstance(op, ops.InsertOp):
                raise ValueError(f"{op.name} is not a hook file's op (instr.global, "
                                 "instr.hook, instr.insert)")
            self._ops.append(op.clone())
        return handles

    # -- results ---------------------------------------------------------------------

    @property
    def module(self) -> ModuleOp:
        """A new, verified ``builtin.module`` of the declared ops (copies: the module
        can be merged into another and this one still grows)."""
        module = ModuleOp([op.clone() for op in self._ops])
        module.verify()
        return module

    def text(self) -> str:
        """The module as MLIR text, as ``luthier-opt`` prints it."""
        return _print(self.module)

    def write(self, path: str) -> None:
        """Write :meth:`text` to ``path`` (``luthier-opt --hooks path`` reads it)."""
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(self.text())


def _print(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    stream.write("\n")
    return stream.getvalue()
