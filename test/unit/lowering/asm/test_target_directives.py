"""``.amdgcn_target`` / ``.amdhsa_code_object_version`` and the matching llvm-mc options."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.target_id import FeatureSetting, Target
from luthier.lowering.asm import (
    DirectiveError,
    kernel_descriptor_directives,
    llvm_mc_target_options,
    target_directives,
)

ANY = FeatureSetting.ANY
ON = FeatureSetting.ON
OFF = FeatureSetting.OFF
UNSUPPORTED = FeatureSetting.UNSUPPORTED


def test_target_id_carries_the_feature_settings() -> None:
    target = Target("gfx90a", xnack=OFF, sramecc=ON)
    assert target_directives(target, 5) == [
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"',
        "\t.amdhsa_code_object_version 5",
    ]
    assert llvm_mc_target_options(target) == [
        "-triple=amdgcn-amd-amdhsa",
        "-mcpu=gfx90a",
        "-mattr=-xnack,+sramecc",
    ]


def test_any_and_unsupported_features_are_left_out() -> None:
    assert target_directives(Target("gfx942", ANY, ANY), 6)[0] == (
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"'
    )
    assert llvm_mc_target_options(Target("gfx1100", UNSUPPORTED, UNSUPPORTED)) == [
        "-triple=amdgcn-amd-amdhsa",
        "-mcpu=gfx1100",
    ]


@pytest.mark.parametrize(
    ("target", "version", "expected"),
    [
        (Target("gfx90a", ANY, ANY), 3, "code object version 3"),
        (Target("gfx90a", ANY, ANY), 7, "code object version 7"),
        (Target("gfx9-generic", ANY, UNSUPPORTED, 1), 5, "needs code object version 6"),
        (Target("gfx1030", ON, UNSUPPORTED), 5, "does not support xnack"),
    ],
)
def test_inexpressible_targets_are_refused(target: Target, version: int, expected: str) -> None:
    with pytest.raises(DirectiveError) as caught:
        target_directives(target, version)
    assert expected in str(caught.value)


def test_kernel_names_must_be_plain_symbols() -> None:
    descriptor = KernelDescriptor.from_bytes(bytes(64))
    for name in ("", "a b", 'a"b', "a;b", "1abc"):
        with pytest.raises(DirectiveError):
            kernel_descriptor_directives(name, descriptor, "gfx908")
