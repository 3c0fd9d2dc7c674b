; ModuleID = 'bad_hooks.hip'
source_filename = "bad_hooks.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@Counter = protected addrspace(1) externally_initialized global i32 0, align 4
@__luthier_insert_0 = protected addrspace(4) externally_initialized constant [57 x i8] c"hook at = \22kernel_entry\22, args = [#instr.const<1 : i32>]\00", section ".luthier.inserts", align 16
@__hip_cuid_eda6547d839c814e = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [4 x ptr] [ptr addrspacecast (ptr addrspace(1) @Counter to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_eda6547d839c814e to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_0 to ptr), ptr @hook], section "llvm.metadata"

; Function Attrs: mustprogress nofree noinline nosync nounwind willreturn memory(none)
define internal fastcc noundef i32 @_Z3fibj(i32 noundef %N) unnamed_addr #0 !dbg !9 {
entry:
  %cmp6 = icmp ult i32 %N, 2, !dbg !12
  br i1 %cmp6, label %cond.end, label %cond.false, !dbg !13

cond.false:                                       ; preds = %entry, %cond.false
  %N.tr8 = phi i32 [ %sub1, %cond.false ], [ %N, %entry ]
  %accumulator.tr7 = phi i32 [ %add, %cond.false ], [ 0, %entry ]
  %sub1 = add i32 %N.tr8, -2
  %sub = add i32 %N.tr8, -1
  %call = tail call fastcc noundef i32 @_Z3fibj(i32 noundef %sub) #2, !dbg !14
  %add = add i32 %call, %accumulator.tr7, !dbg !15
  %cmp = icmp ult i32 %sub1, 2, !dbg !12
  br i1 %cmp, label %cond.end, label %cond.false, !dbg !13

cond.end:                                         ; preds = %cond.false, %entry
  %accumulator.tr.lcssa = phi i32 [ 0, %entry ], [ %add, %cond.false ]
  %N.tr.lcssa = phi i32 [ %N, %entry ], [ %sub1, %cond.false ]
  %accumulator.ret.tr = add i32 %N.tr.lcssa, %accumulator.tr.lcssa
  ret i32 %accumulator.ret.tr, !dbg !16
}

; Function Attrs: mustprogress nofree nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none)
define internal void @hook(i32 noundef %N) #1 section ".luthier.hooks" !dbg !17 {
entry:
  %call = tail call fastcc noundef i32 @_Z3fibj(i32 noundef %N) #2, !dbg !18
  store i32 %call, ptr addrspace(1) @Counter, align 4, !dbg !19, !tbaa !20
  ret void, !dbg !24
}

attributes #0 = { mustprogress nofree noinline nosync nounwind willreturn memory(none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nofree nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #2 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "bad_hooks.hip", directory: ".", checksumkind: CSK_MD5, checksum: "fd6dd0df52d91d3088922427e7dae48c")
!2 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!3 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "fib", scope: !1, file: !1, line: 28, type: !10, scopeLine: 28, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 29, column: 12, scope: !9)
!13 = !DILocation(line: 29, column: 10, scope: !9)
!14 = !DILocation(line: 29, column: 22, scope: !9)
!15 = !DILocation(line: 29, column: 33, scope: !9)
!16 = !DILocation(line: 29, column: 3, scope: !9)
!17 = distinct !DISubprogram(name: "hook", scope: !1, file: !1, line: 31, type: !10, scopeLine: 31, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!18 = !DILocation(line: 31, column: 52, scope: !17)
!19 = !DILocation(line: 31, column: 50, scope: !17)
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !22, i64 0}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C++ TBAA"}
!24 = !DILocation(line: 31, column: 60, scope: !17)
